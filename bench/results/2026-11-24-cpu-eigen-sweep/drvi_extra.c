#include <stdio.h>
double g_t_sweep, g_t_prod[4], g_t_lr, g_t_vec, g_t_bs, g_t_rf;
__attribute__((destructor)) static void dump(void){fprintf(stderr,"LR %.3f vectors %.3f sweep %.3f (block_stage %.3f run_finish %.3f) prod %.3f %.3f\n",g_t_lr,g_t_vec,g_t_sweep,g_t_bs,g_t_rf,g_t_prod[0],g_t_prod[1]);}
