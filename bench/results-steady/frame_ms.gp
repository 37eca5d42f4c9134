# Drawn by spheretest-bench from results.csv's frame_cpu_ms_median; run with: gnuplot frame_ms.gp
set terminal pngcairo size 560,620 font 'Sans,10'
set output 'frame_ms.png'
set multiplot layout 1,1 title 'ms per frame (update of moved circles + all pairs; CPU time, median); dashed: peers'
set logscale xy
set grid
set xlabel 'circles'
set ylabel 'CPU ms per frame'
set format x '%.0s%c'
set key top left font ',8'
set xrange [*:*]
$d0_0 << EOD
10000 0.835181
100000 8.419245
EOD
$d0_1 << EOD
10000 1.850627
100000 20.138134
EOD
$d0_2 << EOD
10000 1.756349
100000 24.5145375
EOD
$d0_3 << EOD
10000 1.731758
100000 30.4660795
EOD
$d0_4 << EOD
10000 2.703666
100000 28.2126585
EOD
$d0_5 << EOD
10000 1.846508
100000 33.2952855
EOD
$d0_6 << EOD
10000 1.963828
100000 15.5815135
EOD
$d0_7 << EOD
10000 1.962531
100000 23.2168485
EOD
$d0_8 << EOD
10000 2.3228365
100000 22.3405795
EOD
$d0_9 << EOD
10000 1.9682415
100000 26.085874
EOD
$d0_10 << EOD
10000 6.1817485
100000 73.9110455
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
