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
1000 1.749331
10000 105.82027
EOD
$d0_1 << EOD
1000 0.0658595
10000 0.442569
100000 5.154255
1000000 51.2049965
EOD
$d0_2 << EOD
1000 0.186012
10000 1.5326875
100000 21.3322955
1000000 166.137841
EOD
$d0_3 << EOD
1000 0.195493
10000 1.594442
100000 16.835118
1000000 177.259789
EOD
$d0_4 << EOD
1000 0.0750345
10000 0.637474
100000 7.523405
1000000 109.834146
EOD
$d0_5 << EOD
1000 0.119266
10000 1.1251685
100000 12.5691455
1000000 170.108777
EOD
$d0_6 << EOD
1000 0.0798455
10000 0.962502
100000 9.4725095
1000000 99.3445785
EOD
$d0_7 << EOD
1000 0.1240685
10000 1.5370465
100000 11.566063
1000000 123.626041
EOD
$d0_8 << EOD
1000 0.196946
10000 1.6486485
100000 20.932518
1000000 246.233476
EOD
$d0_9 << EOD
1000 0.0965195
10000 1.094533
100000 20.813243
1000000 185.556716
EOD
$d0_10 << EOD
1000 0.123259
10000 1.470497
100000 11.9748665
1000000 166.883931
EOD
$d0_11 << EOD
1000 0.7281865
10000 12.175563
100000 243.078765
EOD
$d0_12 << EOD
1000 0.476843
10000 5.776817
100000 79.695547
1000000 854.137983
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
