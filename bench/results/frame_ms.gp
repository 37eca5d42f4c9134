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
1000 1.770089
10000 101.833361
EOD
$d0_1 << EOD
1000 0.0677595
10000 0.4237785
100000 4.520454
1000000 54.713676
EOD
$d0_2 << EOD
1000 0.1905055
10000 2.15464
100000 16.5917245
1000000 165.145744
EOD
$d0_3 << EOD
1000 0.201051
10000 1.6000475
100000 16.257883
1000000 167.4137
EOD
$d0_4 << EOD
1000 0.0698255
10000 0.5958875
100000 6.486691
1000000 88.840803
EOD
$d0_5 << EOD
1000 0.1233385
10000 1.075465
100000 12.1313235
1000000 150.479091
EOD
$d0_6 << EOD
1000 0.076377
10000 0.729405
100000 9.0347245
1000000 101.631654
EOD
$d0_7 << EOD
1000 0.1299255
10000 1.033118
100000 10.64185
1000000 126.363687
EOD
$d0_8 << EOD
1000 0.200237
10000 1.5907775
100000 15.7048645
1000000 236.524134
EOD
$d0_9 << EOD
1000 0.093102
10000 0.998364
100000 12.9893555
1000000 157.720942
EOD
$d0_10 << EOD
1000 0.1242515
10000 1.0928505
100000 15.193538
1000000 152.284453
EOD
$d0_11 << EOD
1000 0.6173085
10000 10.779564
100000 228.295947
EOD
$d0_12 << EOD
1000 0.415901
10000 5.355314
100000 61.2244215
1000000 854.382992
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
