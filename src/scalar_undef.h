#undef PSCR_SCALAR
#undef PSCR_SUF
#undef PSCR_ABS1
#undef PSCR_IS_FINITE
#undef PSCR_INV
#undef PSCR_IS_COMPLEX
#undef PSCR_ABS
#undef PSCR_EPS
