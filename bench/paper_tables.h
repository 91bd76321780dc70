/* Timings of Myllykoski, Rossi, Toivanen (2018), Tables 1-4 (seconds). */
#ifndef PSCR_PAPER_TABLES_H
#define PSCR_PAPER_TABLES_H

typedef struct paper_row {
  int n;           /* n1 = n2 (= n3) */
  double i5;       /* one core of an Intel i5-6600 */
  double gtx;      /* GTX 1080 Ti execution */
  double transfer; /* GTX 1080 Ti RAM-VRAM-RAM transfers */
} paper_row;

typedef struct paper_table {
  const char *name; /* poisson2d, helmholtz2d, poisson3d, helmholtz3d */
  int helmholtz, ndim, rows;
  const paper_row *row;
} paper_table;

extern const paper_table paper_tables[4];

#endif
