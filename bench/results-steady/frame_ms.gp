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
10000 0.601474
100000 4.318481
EOD
$d0_1 << EOD
10000 1.6322875
100000 16.044771
EOD
$d0_2 << EOD
10000 1.5515315
100000 21.5591305
EOD
$d0_3 << EOD
10000 0.5696745
100000 8.897628
EOD
$d0_4 << EOD
10000 1.0284575
100000 13.033706
EOD
$d0_5 << EOD
10000 0.6919365
100000 13.191681
EOD
$d0_6 << EOD
10000 0.9957345
100000 11.0047445
EOD
$d0_7 << EOD
10000 1.5496195
100000 15.6606765
EOD
$d0_8 << EOD
10000 1.012814
100000 17.7514765
EOD
$d0_9 << EOD
10000 1.195363
100000 14.285247
EOD
$d0_10 << EOD
10000 6.507884
100000 60.7062225
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
