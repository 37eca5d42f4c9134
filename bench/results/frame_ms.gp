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
1000 1.0620595
10000 60.035983
EOD
$d0_1 << EOD
1000 0.034541
10000 0.5121095
100000 3.7802515
1000000 45.5789175
EOD
$d0_2 << EOD
1000 0.165545
10000 1.2606445
100000 13.2636955
1000000 136.007379
EOD
$d0_3 << EOD
1000 0.087169
10000 1.3719245
100000 10.679318
1000000 112.173096
EOD
$d0_4 << EOD
1000 0.2065365
10000 1.7500705
100000 27.4790385
1000000 404.247756
EOD
$d0_5 << EOD
1000 0.2087495
10000 3.50283
100000 37.18265
1000000 506.751677
EOD
$d0_6 << EOD
1000 0.231093
10000 3.0203895
100000 49.237929
1000000 445.211403
EOD
$d0_7 << EOD
1000 0.328177
10000 3.0589215
100000 71.278416
1000000 998.334276
EOD
$d0_8 << EOD
1000 0.507578
10000 4.3216695
100000 89.416496
1000000 1195.99161
EOD
$d0_9 << EOD
1000 0.1257815
10000 1.6660405
100000 19.277971
1000000 310.555488
EOD
$d0_10 << EOD
1000 0.136167
10000 1.325401
100000 24.5810005
1000000 349.630614
EOD
$d0_11 << EOD
1000 0.484679
10000 5.910606
100000 157.334304
EOD
$d0_12 << EOD
1000 0.309875
10000 3.274426
100000 43.3951885
1000000 589.792805
EOD
set title 'spheretest'
plot $d0_0 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#1f77b4' title 'brute', \
     $d0_1 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#d62728' title 'grid', \
     $d0_2 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#2ca02c' title 'grid-replicated', \
     $d0_3 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#9467bd' title 'hgrid', \
     $d0_4 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#ff7f0e' title 'quadtree', \
     $d0_5 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#17becf' title 'fit-quadtree', \
     $d0_6 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#8c564b' title 'loose-quadtree', \
     $d0_7 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#e377c2' title 'radius-tree', \
     $d0_8 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#7f7f7f' title 'enneatree', \
     $d0_9 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#bcbd22' title 'sphere-tree', \
     $d0_10 using 1:2 with linespoints lw 2 pt 7 dt 1 lc rgb '#393b79' title 'aabb-tree', \
     $d0_11 using 1:2 with linespoints lw 2 pt 6 dt 2 lc rgb '#637939' title 'box2d-tree', \
     $d0_12 using 1:2 with linespoints lw 2 pt 6 dt 2 lc rgb '#1f77b4' title 'boost-rtree'
unset multiplot
