/* Timing driver: complex Helmholtz pencil (test_eigen's C_HELMHOLTZ, simple rng), order n. */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "eigen.h"
double now_s(void){struct timespec ts;clock_gettime(CLOCK_MONOTONIC,&ts);return ts.tv_sec+1e-9*ts.tv_nsec;}
int main(int argc,char**argv){
  int n=argc>1?atoi(argv[1]):8191, reps=argc>2?atoi(argv[2]):3;
  double complex *ad=calloc(n,16),*ao=calloc(n,16),*md=calloc(n,16),*mo=calloc(n,16),*lam=calloc(n,16),*w=calloc((size_t)5*n,16);
  double *h=malloc(n*8),sum=0; unsigned long long s=11;
  for(int i=0;i<n-1;i++){s=s*6364136223846793005ULL+1442695040888963407ULL;h[i]=1.0+2.0*((s>>11)*(1.0/9007199254740992.0));sum+=h[i];}
  for(int i=0;i<n-1;i++)h[i]/=sum;
  double omega=0.3*n+1.0;
  for(int l=0;l<n;l++){
    if(l==0||l==n-1){double hh=l==0?h[0]:h[n-2];ad[l]=1.0/hh-I*omega/2.0;md[l]=hh/3.0+I/(2.0*omega);}
    else{ad[l]=(h[l-1]+h[l])/(h[l-1]*h[l]);md[l]=(h[l-1]+h[l])/3.0;}
    if(l<n-1){ao[l]=-1.0/h[l];mo[l]=h[l]/6.0;}
  }
  int sel[5]={0,1,n/2,n-2,n-1};
  for(int r=0;r<reps;r++){double t0=now_s();int st=pscr_eigen_complex(n,ad,ao,md,mo,lam,5,sel,w);double t1=now_s();
    printf("n=%d st=%d %.3f s\n",n,st,t1-t0);}
  return 0;}
