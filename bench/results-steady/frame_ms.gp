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
10000 0.604199
100000 4.236971
EOD
$d0_1 << EOD
10000 1.464946
100000 17.8833205
EOD
$d0_2 << EOD
10000 1.599977
100000 15.9939305
EOD
$d0_3 << EOD
10000 0.561159
100000 6.5367505
EOD
$d0_4 << EOD
10000 1.058896
100000 12.1954645
EOD
$d0_5 << EOD
10000 0.922445
100000 12.255887
EOD
$d0_6 << EOD
10000 1.0046815
100000 13.759985
EOD
$d0_7 << EOD
10000 1.5371775
100000 15.694203
EOD
$d0_8 << EOD
10000 0.998071
100000 16.2266255
EOD
$d0_9 << EOD
10000 1.1830855
100000 12.54908
EOD
$d0_10 << EOD
10000 6.5257405
100000 66.451353
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
