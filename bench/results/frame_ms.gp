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
1000 1.2940355
10000 78.97028
EOD
$d0_1 << EOD
1000 0.070306
10000 0.7252185
100000 7.7993225
1000000 76.7706345
EOD
$d0_2 << EOD
1000 0.1431575
10000 1.30448
100000 17.060083
1000000 172.388303
EOD
$d0_3 << EOD
1000 0.1314955
10000 1.5533595
100000 21.030609
1000000 204.852483
EOD
$d0_4 << EOD
1000 0.116392
10000 1.290599
100000 26.064125
1000000 421.209708
EOD
$d0_5 << EOD
1000 0.157654
10000 1.7586075
100000 27.218199
1000000 466.26636
EOD
$d0_6 << EOD
1000 0.116903
10000 1.2709375
100000 20.4231805
1000000 225.966744
EOD
$d0_7 << EOD
1000 0.159973
10000 1.358756
100000 19.055678
1000000 187.648677
EOD
$d0_8 << EOD
1000 0.2484445
10000 2.2814085
100000 32.0394225
1000000 281.601792
EOD
$d0_9 << EOD
1000 0.1344965
10000 1.4369325
100000 17.082545
1000000 221.593412
EOD
$d0_10 << EOD
1000 0.1603645
10000 1.5032965
100000 22.090207
1000000 212.004766
EOD
$d0_11 << EOD
1000 0.6628325
10000 11.595043
100000 273.362446
EOD
$d0_12 << EOD
1000 0.48233
10000 4.956857
100000 64.3401235
1000000 792.531158
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
