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
1000 0.7067585
10000 69.731412
EOD
$d0_1 << EOD
1000 0.022969
10000 0.203637
100000 2.1231935
1000000 23.021232
EOD
$d0_2 << EOD
1000 0.1259165
10000 1.240665
100000 13.0309405
1000000 129.388984
EOD
$d0_3 << EOD
1000 0.083188
10000 0.929769
100000 9.518026
1000000 98.6220395
EOD
$d0_4 << EOD
1000 0.1597415
10000 1.743501
100000 22.4649515
1000000 371.932509
EOD
$d0_5 << EOD
1000 0.2208025
10000 2.7690415
100000 33.379535
1000000 447.386819
EOD
$d0_6 << EOD
1000 0.163177
10000 2.9404865
100000 42.1971465
1000000 394.354167
EOD
$d0_7 << EOD
1000 0.267371
10000 3.1787595
100000 68.745245
1000000 998.210418
EOD
$d0_8 << EOD
1000 0.4014055
10000 4.6145885
100000 89.558382
1000000 1182.20084
EOD
$d0_9 << EOD
1000 0.1120665
10000 1.47624
100000 18.6342205
1000000 299.353279
EOD
$d0_10 << EOD
1000 0.1215445
10000 1.3469225
100000 17.337913
1000000 339.314766
EOD
$d0_11 << EOD
1000 0.4001435
10000 5.886175
100000 132.22502
1000000 2276.00371
EOD
$d0_12 << EOD
1000 0.2776965
10000 3.3468385
100000 40.698895
1000000 577.829075
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
