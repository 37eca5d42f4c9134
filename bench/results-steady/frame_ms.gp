# Drawn by spheretest-bench from results.csv's frame_cpu_ms_median; run with: gnuplot frame_ms.gp
set terminal pngcairo size 560,620 font 'Sans,10'
set output 'frame_ms.png'
set multiplot layout 1,1 title "ms per frame: update of the moved circles + all pairs\nCPU time, median; dashed: peers"
set logscale xy
set grid
set xlabel 'circles'
set ylabel 'CPU ms per frame'
set format x '%.0s%c'
set key top left font ',8'
set xrange [*:*]
$d0_0 << EOD
10000 0.456548
100000 6.6646715
EOD
$d0_1 << EOD
10000 1.6187745
100000 19.2526485
EOD
$d0_2 << EOD
10000 1.550591
100000 16.111992
EOD
$d0_3 << EOD
10000 0.587561
100000 7.2150325
EOD
$d0_4 << EOD
10000 1.0202475
100000 15.7106825
EOD
$d0_5 << EOD
10000 0.705436
100000 10.8903955
EOD
$d0_6 << EOD
10000 0.9518835
100000 14.420228
EOD
$d0_7 << EOD
10000 1.500202
100000 21.9526415
EOD
$d0_8 << EOD
10000 1.36763
100000 13.7053995
EOD
$d0_9 << EOD
10000 1.470397
100000 11.5620915
EOD
$d0_10 << EOD
10000 6.66515
100000 62.899749
EOD
set title 'spheretest'
plot $d0_0 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#1f77b4' title 'grid', \
     $d0_1 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#d62728' title 'grid-replicated', \
     $d0_2 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#2ca02c' title 'hgrid', \
     $d0_3 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#9467bd' title 'quadtree', \
     $d0_4 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#ff7f0e' title 'fit-quadtree', \
     $d0_5 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#17becf' title 'loose-quadtree', \
     $d0_6 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#8c564b' title 'radius-tree', \
     $d0_7 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#e377c2' title 'enneatree', \
     $d0_8 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#7f7f7f' title 'sphere-tree', \
     $d0_9 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#bcbd22' title 'aabb-tree', \
     $d0_10 using 1:2 with linespoints lw 2 pt 6 dt 2 lc rgb '#393b79' title 'boost-rtree'
unset multiplot
