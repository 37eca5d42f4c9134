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
1000 2.0491925
10000 110.503525
EOD
$d0_1 << EOD
1000 0.0825195
10000 0.845846
100000 8.854527
1000000 73.293804
EOD
$d0_2 << EOD
1000 0.175244
10000 1.782804
100000 19.4143765
1000000 158.108089
EOD
$d0_3 << EOD
1000 0.1974555
10000 2.187312
100000 24.1980285
1000000 234.369978
EOD
$d0_4 << EOD
1000 0.1543045
10000 1.9495465
100000 30.0484115
1000000 395.959905
EOD
$d0_5 << EOD
1000 0.1792365
10000 2.1108335
100000 23.539624
1000000 447.549389
EOD
$d0_6 << EOD
1000 0.1299685
10000 1.9445525
100000 20.4961665
1000000 227.995158
EOD
$d0_7 << EOD
1000 0.1685665
10000 1.913278
100000 15.7293805
1000000 234.134487
EOD
$d0_8 << EOD
1000 0.234796
10000 2.60183
100000 25.1005205
1000000 271.297556
EOD
$d0_9 << EOD
1000 0.1820965
10000 2.0795245
100000 19.723286
1000000 242.338333
EOD
$d0_10 << EOD
1000 0.1843555
10000 2.286513
100000 26.6579075
1000000 286.377794
EOD
$d0_11 << EOD
1000 0.6892725
10000 15.383282
100000 290.149863
EOD
$d0_12 << EOD
1000 0.479179
10000 6.5212655
100000 71.5328955
1000000 1016.0052
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
