! test_fortran: the Fortran module (fortran/pscr.f90) against the library.
!
! Checks the module's constants against the library's own strings (every
! status name and value, every flag bit), its bind(C) types against the C
! compiler's layout (test_fortran_layout.c), the vector layout it
! documents (u(n2, n1) and u(n3, n2, n1) against A written out), and solves
! through every generic: 2D Poisson on a uniform and a graded mesh, 3D
! Poisson, 2D Helmholtz (complex, with and without refinement), float and
! float complex, in place, batches, bad input. Each solve is judged by its
! normwise backward error ||Au - f||_inf / (||A||_inf ||u||_inf + ||f||_inf)
! (pscr_operator_apply, pscr_operator_norm_inf; float solves in double from
! the widened data). CPU backend. Prints one line per check; error stop
! when any failed.
!
! SPDX-License-Identifier: BSD-3-Clause
program test_fortran
  use, intrinsic :: iso_c_binding
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use pscr
  implicit none

  interface
    function pscr_ftest_layout(out, cap) bind(C, name="pscr_ftest_layout") result(n)
      import :: c_size_t, c_int
      integer(c_size_t), intent(out) :: out(*)
      integer(c_int), value :: cap
      integer(c_int) :: n
    end function pscr_ftest_layout
  end interface

  ! The factors of one dimension (real, double complex, float complex).
  type :: dimension_factors
    real(c_double), allocatable :: ad(:), ao(:), md(:)
  end type dimension_factors
  type :: zdimension_factors
    complex(c_double_complex), allocatable :: ad(:), ao(:), md(:), mo(:)
  end type zdimension_factors
  type :: cdimension_factors
    complex(c_float_complex), allocatable :: ad(:), ao(:), md(:), mo(:)
  end type cdimension_factors

  integer :: nfail = 0, ncheck = 0
  type(pscr_options) :: opts

  call seed_random()
  call pscr_options_init(opts)
  opts%backend = PSCR_BACKEND_CPU

  call test_strings()
  call test_layout()
  call test_options()
  call test_poisson_2d()
  call test_poisson_2d_graded()
  call test_poisson_3d()
  call test_helmholtz_2d()
  call test_float()
  call test_float_complex()
  call test_bad_input()

  if (nfail > 0) then
    print '(a,i0,a,i0,a)', 'test_fortran: ', nfail, ' of ', ncheck, ' checks FAILED'
    error stop 1
  end if
  print '(a,i0,a)', 'test_fortran: all ', ncheck, ' checks passed'

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    ncheck = ncheck + 1
    if (ok) then
      print '(a,a)', 'ok    ', what
    else
      print '(a,a)', 'FAIL  ', what
      nfail = nfail + 1
    end if
  end subroutine check

  !> A check of a status: on failure also the status text and the detail.
  subroutine check_st(st, want, what)
    integer(c_int), intent(in) :: st, want
    character(len=*), intent(in) :: what
    call check(st == want, what)
    if (st /= want) print '(6x,a,a,a)', pscr_status_string(st), ' -- ', pscr_last_error()
  end subroutine check_st

  !> A bound check, printing the value and the bound.
  subroutine check_le(x, bound, what)
    real(c_double), intent(in) :: x, bound
    character(len=*), intent(in) :: what
    character(len=64) :: buf
    write (buf, '(a,es9.2,a,es9.2)') ' = ', x, ' <= ', bound
    call check(x <= bound, what//trim(buf))
  end subroutine check_le

  subroutine seed_random()
    integer :: k, i
    integer, allocatable :: seed(:)
    call random_seed(size=k)
    allocate (seed(k))
    seed = [(20240 + 7919*i, i = 1, k)]
    call random_seed(put=seed)
  end subroutine seed_random

  function itoa(i) result(s)
    integer, intent(in) :: i
    character(len=:), allocatable :: s
    character(len=24) :: buf
    write (buf, '(i0)') i
    s = trim(buf)
  end function itoa

  !> y = T x for the symmetric tridiagonal T = tridiag(o, d, o).
  function trimul(d, o, x) result(y)
    real(c_double), intent(in) :: d(:), o(:), x(:)
    real(c_double) :: y(size(d))
    integer :: n
    n = size(d)
    y = d*x
    if (n > 1) then
      y(1:n - 1) = y(1:n - 1) + o*x(2:n)
      y(2:n) = y(2:n) + o*x(1:n - 1)
    end if
  end function trimul

  !> The dense matrix of tridiag(o, d, o).
  function dense(d, o) result(a)
    real(c_double), intent(in) :: d(:), o(:)
    real(c_double) :: a(size(d), size(d))
    integer :: i
    a = 0
    do i = 1, size(d)
      a(i, i) = d(i)
    end do
    do i = 1, size(d) - 1
      a(i, i + 1) = o(i)
      a(i + 1, i) = o(i)
    end do
  end function dense

  !> Backward error of a double solve: the first n entries of u and f.
  function berr_r64(ndim, pencils, shift, n, u, f) result(b)
    integer(c_int), intent(in) :: ndim
    type(pscr_pencil), intent(in) :: pencils(:)
    real(c_double), intent(in) :: shift
    integer, intent(in) :: n
    real(c_double), intent(in) :: u(n), f(n)
    real(c_double) :: b, norm_a
    real(c_double), allocatable :: r(:)
    allocate (r(n))
    b = huge(1.0_c_double)
    if (pscr_operator_apply(PSCR_R64, ndim, pencils, shift, u, r) /= PSCR_SUCCESS) return
    if (pscr_operator_norm_inf(PSCR_R64, ndim, pencils, shift, norm_a) /= PSCR_SUCCESS) return
    b = maxval(abs(r - f))/(norm_a*maxval(abs(u)) + maxval(abs(f)))
  end function berr_r64

  function berr_c64(ndim, pencils, shift, n, u, f) result(b)
    integer(c_int), intent(in) :: ndim
    type(pscr_pencil), intent(in) :: pencils(:)
    complex(c_double_complex), intent(in) :: shift
    integer, intent(in) :: n
    complex(c_double_complex), intent(in) :: u(n), f(n)
    real(c_double) :: b, norm_a
    complex(c_double_complex), allocatable :: r(:)
    allocate (r(n))
    b = huge(1.0_c_double)
    if (pscr_operator_apply(PSCR_C64, ndim, pencils, shift, u, r) /= PSCR_SUCCESS) return
    if (pscr_operator_norm_inf(PSCR_C64, ndim, pencils, shift, norm_a) /= PSCR_SUCCESS) return
    b = maxval(abs(r - f))/(norm_a*maxval(abs(u)) + maxval(abs(f)))
  end function berr_c64

  subroutine random_complex(z)
    complex(c_double_complex), intent(out) :: z(:)
    real(c_double), allocatable :: re(:), im(:)
    allocate (re(size(z)), im(size(z)))
    call random_number(re)
    call random_number(im)
    z = cmplx(re - 0.5_c_double, im - 0.5_c_double, c_double_complex)
  end subroutine random_complex

  !> Poisson factors of one dimension: n unknowns, uniform (grading 0) or
  !! graded mesh on [0, 1].
  subroutine poisson_1d(n, grading, ad, ao, md)
    integer(c_int), intent(in) :: n
    real(c_double), intent(in) :: grading
    real(c_double), allocatable, intent(out) :: ad(:), ao(:), md(:)
    real(c_double), allocatable :: h(:)
    integer(c_int) :: st
    allocate (h(n + 1), ad(n), ao(n - 1), md(n))
    if (grading <= 0) then
      st = pscr_mesh_uniform(n + 1, 1.0_c_double, h)
    else
      st = pscr_mesh_graded(n + 1, 1.0_c_double, grading, h)
    end if
    call check_st(st, PSCR_SUCCESS, 'mesh of '//itoa(int(n + 1))//' steps')
    st = pscr_poisson_factors(n, h, ad, ao, md)
    call check_st(st, PSCR_SUCCESS, 'pscr_poisson_factors n = '//itoa(int(n)))
  end subroutine poisson_1d

  ! ---------------------------------------------------------------- tests

  subroutine test_strings()
    character(len=*), parameter :: names(0:9) = [character(len=24) :: 'PSCR_SUCCESS', &
      'PSCR_ERROR_INVALID_VALUE', 'PSCR_ERROR_NOT_SUPPORTED', 'PSCR_ERROR_NON_FINITE', &
      'PSCR_ERROR_NOT_DEFINITE', 'PSCR_ERROR_EIGEN_FAILED', 'PSCR_ERROR_SINGULAR', &
      'PSCR_ERROR_HOST_ALLOC', 'PSCR_ERROR_DEVICE_ALLOC', 'PSCR_ERROR_DEVICE']
    integer(c_int), parameter :: values(0:9) = [PSCR_SUCCESS, PSCR_ERROR_INVALID_VALUE, &
      PSCR_ERROR_NOT_SUPPORTED, PSCR_ERROR_NON_FINITE, PSCR_ERROR_NOT_DEFINITE, &
      PSCR_ERROR_EIGEN_FAILED, PSCR_ERROR_SINGULAR, PSCR_ERROR_HOST_ALLOC, &
      PSCR_ERROR_DEVICE_ALLOC, PSCR_ERROR_DEVICE]
    integer(c_int), parameter :: flags(25) = [PSCR_FLAG_NO_MERGE_TOP, PSCR_FLAG_EIGEN_SCALAR, &
      PSCR_FLAG_EIGEN_TEAM_NEVER, PSCR_FLAG_EIGEN_TEAM_ALWAYS, PSCR_FLAG_EIGEN_SPLIT_NEVER, &
      PSCR_FLAG_EIGEN_SPLIT_ALWAYS, PSCR_FLAG_CPU_FIXED_TEAM, PSCR_FLAG_NO_SINE, &
      PSCR_FLAG_CUDA_NO_TOEPLITZ, &
      PSCR_FLAG_CUDA_NO_PIVOT_TABLE, PSCR_FLAG_CUDA_NO_STAGE, PSCR_FLAG_CUDA_NO_EARLY_LAUNCH, &
      PSCR_FLAG_CUDA_PAIR_NEVER, PSCR_FLAG_CUDA_PAIR_ALWAYS, PSCR_FLAG_CUDA_COUPLE_ONE, &
      PSCR_FLAG_CUDA_COUPLE_MANY, PSCR_FLAG_CUDA_FUSE_NEVER, PSCR_FLAG_CUDA_FUSE_ALL, &
      PSCR_FLAG_CUDA_NO_TWIST, PSCR_FLAG_MPI_LOCAL_PLANS, PSCR_FLAG_CUDA_PCR_REFINE_ALL, &
      PSCR_FLAG_CUDA_TF_NO_PARTITION, PSCR_FLAG_TEST_CUDA_SLAB_1000, PSCR_FLAG_TEST_TRANSFORM_PROBE_FAILS, &
      PSCR_FLAG_TEST_MEASURE_TRANSFORM_FAILS]
    character(len=:), allocatable :: s
    integer(c_int) :: major, minor, patch, all_flags, bit
    integer :: i
    logical :: ok

    s = pscr_version()
    call pscr_version_get(major, minor, patch)
    call check(s == itoa(int(major))//'.'//itoa(int(minor))//'.'//itoa(int(patch)), &
      'pscr_version() "'//s//'" matches pscr_version_get')

    ok = .true.
    do i = 0, 9
      s = pscr_status_string(values(i))
      if (index(s, trim(names(i))//':') /= 1) then
        ok = .false.
        print '(6x,a,i0,a,a)', 'status ', values(i), ': ', s
      end if
    end do
    call check(ok, 'every status constant names its value (pscr_status_string)')
    call check(pscr_status_string(10_c_int) == 'unknown status', &
      'no status past PSCR_ERROR_DEVICE (10 is unknown)')

    ok = .true.
    all_flags = 0
    do i = 1, size(flags)
      s = pscr_flag_name(flags(i))
      ok = ok .and. popcnt(flags(i)) == 1 .and. len(s) > 0
      all_flags = ior(all_flags, flags(i))
    end do
    do bit = 0, 30
      if (btest(all_flags, bit)) cycle
      if (len(pscr_flag_name(ishft(1_c_int, bit))) > 0) then
        ok = .false.
        print '(6x,a,i0,a)', 'bit ', bit, ' is a flag of the library but not of the module'
      end if
    end do
    call check(ok .and. popcnt(all_flags) == size(flags), &
      'the module has every flag bit of the library, each a flag name (pscr_flag_name)')
    s = pscr_stage_name(PSCR_STAGE_LEVEL3)//' '//pscr_stage_name(PSCR_STAGE_OTHER)//' '// &
      pscr_stage_name(PSCR_STAGE_COUNT)
    call check(s == 'level3 other unknown', 'pscr_stage_name: "'//s//'"')
  end subroutine test_strings

  subroutine test_layout()
    type(pscr_options), target :: o
    type(pscr_pencil), target :: p
    type(pscr_candidate), target :: c
    type(pscr_info), target :: inf
    type(pscr_cost) :: cost
    integer(c_size_t) :: cl(64), fl(64)
    integer :: n, i
    logical :: ok

    fl(1:41) = [c_sizeof(o), off(c_loc(o), c_loc(o%size)), off(c_loc(o), c_loc(o%backend)), &
      off(c_loc(o), c_loc(o%device)), off(c_loc(o), c_loc(o%num_threads)), &
      off(c_loc(o), c_loc(o%check_finite)), off(c_loc(o), c_loc(o%cuda_rows_per_thread)), &
      off(c_loc(o), c_loc(o%max_batch)), off(c_loc(o), c_loc(o%flags)), &
      off(c_loc(o), c_loc(o%method)), off(c_loc(o), c_loc(o%planner)), &
      off(c_loc(o), c_loc(o%refine)), &
      c_sizeof(p), off(c_loc(p), c_loc(p%n)), off(c_loc(p), c_loc(p%a_diag)), &
      off(c_loc(p), c_loc(p%a_off)), off(c_loc(p), c_loc(p%m_diag)), &
      off(c_loc(p), c_loc(p%m_off)), &
      c_sizeof(cost), &
      c_sizeof(c), off(c_loc(c), c_loc(c%status)), off(c_loc(c), c_loc(c%reason)), &
      off(c_loc(c), c_loc(c%estimate_seconds)), off(c_loc(c), c_loc(c%measured_seconds)), &
      c_sizeof(inf), off(c_loc(inf), c_loc(inf%dtype)), off(c_loc(inf), c_loc(inf%n)), &
      off(c_loc(inf), c_loc(inf%eigenpairs)), off(c_loc(inf), c_loc(inf%device_bytes)), &
      off(c_loc(inf), c_loc(inf%level3_rows_per_thread)), &
      off(c_loc(inf), c_loc(inf%cuda_early_launch)), off(c_loc(inf), c_loc(inf%cost)), &
      off(c_loc(inf), c_loc(inf%cost_total)), off(c_loc(inf), c_loc(inf%min_bytes)), &
      off(c_loc(inf), c_loc(inf%method)), off(c_loc(inf), c_loc(inf%transform_defect)), &
      off(c_loc(inf), c_loc(inf%ncandidates)), off(c_loc(inf), c_loc(inf%chosen)), &
      off(c_loc(inf), c_loc(inf%candidate)), off(c_loc(inf), c_loc(inf%plan_seconds)), &
      off(c_loc(inf), c_loc(inf%transform_sine))]
    n = pscr_ftest_layout(cl, int(size(cl), c_int))
    ok = n == 41
    if (ok) then
      do i = 1, n
        if (cl(i) /= fl(i)) then
          ok = .false.
          print '(6x,a,i0,a,i0,a,i0)', 'layout entry ', i, ': C ', cl(i), ', Fortran ', fl(i)
        end if
      end do
    end if
    call check(ok, 'bind(C) types: size and offsets of pscr_options ('// &
      itoa(int(c_sizeof(o)))//' bytes), pscr_pencil, pscr_cost, pscr_candidate, pscr_info '// &
      'as in C')
  end subroutine test_layout

  function off(base, field) result(d)
    type(c_ptr), intent(in) :: base, field
    integer(c_size_t) :: d
    d = int(transfer(field, 0_c_intptr_t) - transfer(base, 0_c_intptr_t), c_size_t)
  end function off

  subroutine test_options()
    type(pscr_options) :: o
    call pscr_options_init(o)
    call check(o%size == c_sizeof(o) .and. o%backend == PSCR_BACKEND_AUTO .and. &
      o%check_finite == 1 .and. o%max_batch == 1 .and. o%refine == 0 .and. o%flags == 0 .and. &
      all(o%method == PSCR_METHOD_AUTO) .and. o%planner == PSCR_PLANNER_ESTIMATE, &
      'pscr_options_init: the documented defaults')
  end subroutine test_options

  !> 2D Poisson 31 x 40 (uniform mesh), R64: the layout u(n2, n1), plan
  !! info, solve, in place, batches.
  subroutine test_poisson_2d()
    integer(c_int), parameter :: n1 = 31, n2 = 40
    integer, parameter :: nn = n1*n2
    integer(c_size_t), parameter :: ld = nn + 3
    real(c_double), allocatable, target :: ad1(:), ao1(:), md1(:), ad2(:), ao2(:), md2(:)
    real(c_double), allocatable :: uu(:, :), av(:, :), want(:, :), f(:, :), u(:, :), w(:, :)
    real(c_double), allocatable :: fb(:, :), ub(:, :)
    type(pscr_pencil) :: pencils(2)
    type(pscr_info) :: info
    type(c_ptr) :: plan
    integer(c_int) :: st
    real(c_double) :: b

    call poisson_1d(n1, 0.0_c_double, ad1, ao1, md1)
    call poisson_1d(n2, 0.0_c_double, ad2, ao2, md2)
    pencils(1) = pscr_pencil(n1, c_loc(ad1), c_loc(ao1), c_loc(md1), c_null_ptr)
    pencils(2) = pscr_pencil(n2, c_loc(ad2), c_loc(ao2), c_loc(md2), c_null_ptr)

    ! The documented layout: u(i2, i1) is entry i1*n2 + i2 (0-based), so
    ! A u = M2 U A1^T + A2 U M1^T with U = u(n2, n1).
    allocate (uu(n2, n1), av(n2, n1), want(n2, n1))
    call random_number(uu)
    st = pscr_operator_apply(PSCR_R64, 2, pencils, 0.0_c_double, uu, av)
    want = matmul(matmul(dense(md2, spread(0.0_c_double, 1, n2 - 1)), uu), &
      transpose(dense(ad1, ao1))) + matmul(matmul(dense(ad2, ao2), uu), &
      transpose(dense(md1, spread(0.0_c_double, 1, n1 - 1))))
    call check(st == PSCR_SUCCESS .and. maxval(abs(av - want)) <= 1e-12_c_double*maxval(abs(want)), &
      '2D layout: pscr_operator_apply on u(n2, n1) is M2 U A1^T + A2 U M1^T')

    st = pscr_plan_create(plan, PSCR_R64, 2, pencils, 0.0_c_double, opts)
    call check_st(st, PSCR_SUCCESS, 'pscr_plan_create 2D Poisson 31 x 40, R64, CPU')
    if (st /= PSCR_SUCCESS) return
    st = pscr_plan_info(plan, info)
    call check(st == PSCR_SUCCESS .and. info%dtype == PSCR_R64 .and. info%ndim == 2 .and. &
      all(info%n == [n1, n2, 1_c_int]) .and. info%backend == PSCR_BACKEND_CPU .and. &
      info%size == c_sizeof(info), 'pscr_plan_info: R64, ndim 2, n = 31 40 1, CPU backend')

    allocate (f(n2, n1), u(n2, n1), w(n2, n1))
    call random_number(f)
    f = f - 0.5_c_double
    st = pscr_solve(plan, f, u)
    call check_st(st, PSCR_SUCCESS, 'pscr_solve (rank-2 arrays)')
    b = berr_r64(2_c_int, pencils, 0.0_c_double, nn, u, f)
    call check_le(b, 1e-13_c_double, '2D Poisson 31 x 40 backward error')

    w = f
    st = pscr_solve(plan, w)
    call check(st == PSCR_SUCCESS .and. all(w == u), 'in place pscr_solve(plan, u) equals out of place')

    ! Two right-hand sides ld = n1*n2 + 3 apart: f and 2 f + 1.
    allocate (fb(ld, 2), ub(ld, 2))
    fb = 7
    ub = -7
    fb(1:nn, 1) = reshape(f, [nn])
    fb(1:nn, 2) = reshape(2*f + 1, [nn])
    st = pscr_solve_batch(plan, 2_c_int, fb, ld, ub, ld)
    call check_st(st, PSCR_SUCCESS, 'pscr_solve_batch, 2 right-hand sides, ld = n + 3')
    w = 2*f + 1
    st = pscr_solve(plan, w)
    call check(all(ub(1:nn, 1) == reshape(u, [nn])) .and. all(ub(1:nn, 2) == reshape(w, [nn])) &
      .and. all(ub(nn + 1:, :) == -7) .and. all(fb(nn + 1:, :) == 7), &
      'batch of 2 equals the single solves; the gaps untouched')
    st = pscr_solve_batch(plan, 2_c_int, fb, ld)
    call check(st == PSCR_SUCCESS .and. all(fb(1:nn, :) == ub(1:nn, :)), &
      'in place pscr_solve_batch equals out of place')

    call pscr_plan_destroy(plan)
    call check(.not. c_associated(plan), 'pscr_plan_destroy sets the plan to NULL')
  end subroutine test_poisson_2d

  !> 2D Poisson 40 x 31 on a graded mesh, pencils from pscr_make_pencil.
  subroutine test_poisson_2d_graded()
    integer(c_int), parameter :: n1 = 40, n2 = 31
    integer, parameter :: nn = n1*n2
    real(c_double), allocatable, target :: ad1(:), ao1(:), md1(:), ad2(:), ao2(:), md2(:)
    real(c_double), allocatable :: f(:), u(:)
    type(pscr_pencil) :: pencils(2)
    type(c_ptr) :: plan
    integer(c_int) :: st

    call poisson_1d(n1, 0.6_c_double, ad1, ao1, md1)
    call poisson_1d(n2, 0.3_c_double, ad2, ao2, md2)
    st = pscr_make_pencil(pencils(1), ad1, ao1, md1)
    call check_st(st, PSCR_SUCCESS, 'pscr_make_pencil (real(c_double), M diagonal)')
    st = pscr_make_pencil(pencils(2), ad2, ao2, md2)
    call check(pencils(1)%n == n1 .and. c_associated(pencils(1)%a_diag, c_loc(ad1)) .and. &
      .not. c_associated(pencils(1)%m_off), 'pscr_make_pencil: n and addresses')
    st = pscr_plan_create(plan, PSCR_R64, 2, pencils, 0.0_c_double, opts)
    call check_st(st, PSCR_SUCCESS, 'pscr_plan_create 2D Poisson 40 x 31, graded mesh')
    if (st /= PSCR_SUCCESS) return
    allocate (f(nn), u(nn))
    call random_number(f)
    st = pscr_solve(plan, f, u)
    call check_st(st, PSCR_SUCCESS, 'pscr_solve (rank-1 arrays)')
    call check_le(berr_r64(2_c_int, pencils, 0.0_c_double, nn, u, f), 1e-13_c_double, &
      '2D Poisson 40 x 31 graded backward error')
    call pscr_plan_destroy(plan)
  end subroutine test_poisson_2d_graded

  !> 3D Poisson 9 x 10 x 11 (graded), u(n3, n2, n1).
  subroutine test_poisson_3d()
    integer(c_int), parameter :: n(3) = [9_c_int, 10_c_int, 11_c_int]
    integer, parameter :: nn = 9*10*11
    type(dimension_factors), target :: d(3)
    type(pscr_pencil) :: pencils(3)
    real(c_double), allocatable :: a(:), bb(:), c(:), u(:, :, :), av(:, :, :), want(:, :, :)
    real(c_double), allocatable :: f(:, :, :)
    type(c_ptr) :: plan
    integer(c_int) :: st
    integer :: k, i1, i2, i3

    do k = 1, 3
      call poisson_1d(n(k), 0.2_c_double*k, d(k)%ad, d(k)%ao, d(k)%md)
      st = pscr_make_pencil(pencils(k), d(k)%ad, d(k)%ao, d(k)%md)
    end do

    ! The layout of a separable u(i3, i2, i1) = a(i3) b(i2) c(i1):
    ! (A1 (x) M2 (x) M3) u = (A1 c) (M2 b) (M3 a), and so on.
    allocate (a(n(3)), bb(n(2)), c(n(1)), u(n(3), n(2), n(1)), av(n(3), n(2), n(1)))
    allocate (want(n(3), n(2), n(1)))
    call random_number(a)
    call random_number(bb)
    call random_number(c)
    do i1 = 1, n(1)
      do i2 = 1, n(2)
        do i3 = 1, n(3)
          u(i3, i2, i1) = a(i3)*bb(i2)*c(i1)
        end do
      end do
    end do
    associate (a1c => trimul(d(1)%ad, d(1)%ao, c), m1c => d(1)%md*c, &
               a2b => trimul(d(2)%ad, d(2)%ao, bb), m2b => d(2)%md*bb, &
               a3a => trimul(d(3)%ad, d(3)%ao, a), m3a => d(3)%md*a)
      do i1 = 1, n(1)
        do i2 = 1, n(2)
          do i3 = 1, n(3)
            want(i3, i2, i1) = a1c(i1)*m2b(i2)*m3a(i3) + m1c(i1)*a2b(i2)*m3a(i3) + &
              m1c(i1)*m2b(i2)*a3a(i3)
          end do
        end do
      end do
    end associate
    st = pscr_operator_apply(PSCR_R64, 3, pencils, 0.0_c_double, u, av)
    call check(st == PSCR_SUCCESS .and. maxval(abs(av - want)) <= 1e-12_c_double*maxval(abs(want)), &
      '3D layout: pscr_operator_apply on u(n3, n2, n1) is A written out')

    st = pscr_plan_create(plan, PSCR_R64, 3, pencils, 0.0_c_double, opts)
    call check_st(st, PSCR_SUCCESS, 'pscr_plan_create 3D Poisson 9 x 10 x 11, graded')
    if (st /= PSCR_SUCCESS) return
    allocate (f(n(3), n(2), n(1)))
    call random_number(f)
    st = pscr_solve(plan, f, u)
    call check_st(st, PSCR_SUCCESS, 'pscr_solve (rank-3 arrays)')
    call check_le(berr_r64(3_c_int, pencils, 0.0_c_double, nn, u, f), 1e-13_c_double, &
      '3D Poisson 9 x 10 x 11 backward error')
    call pscr_plan_destroy(plan)
  end subroutine test_poisson_3d

  !> 2D Helmholtz 33 x 40 nodes on [0, 1]^2, omega = 12, shift -omega^2
  !! (C64): without and with one step of refinement.
  subroutine test_helmholtz_2d()
    integer(c_int), parameter :: n(2) = [33_c_int, 40_c_int]
    integer, parameter :: nn = 33*40
    real(c_double), parameter :: omega = 12
    type(zdimension_factors), target :: d(2)
    type(pscr_pencil) :: pencils(2)
    type(pscr_options) :: o
    complex(c_double_complex) :: shift
    complex(c_double_complex), allocatable :: f(:), u(:)
    type(c_ptr) :: plan
    integer(c_int) :: st
    integer :: k, refine

    shift = cmplx(-omega**2, 0, c_double_complex)
    do k = 1, 2
      call helmholtz_1d(n(k), omega, d(k))
      st = pscr_make_pencil(pencils(k), d(k)%ad, d(k)%ao, d(k)%md, d(k)%mo)
    end do
    call check(c_associated(pencils(2)%m_off, c_loc(d(2)%mo)), &
      'pscr_make_pencil (complex(c_double_complex), M tridiagonal)')
    allocate (f(nn), u(nn))
    call random_complex(f)
    do refine = 0, 1
      o = opts
      o%refine = refine
      st = pscr_plan_create(plan, PSCR_C64, 2, pencils, shift, o)
      call check_st(st, PSCR_SUCCESS, 'pscr_plan_create 2D Helmholtz 33 x 40, C64, refine '// &
        itoa(refine))
      if (st /= PSCR_SUCCESS) cycle
      st = pscr_solve(plan, f, u)
      call check_st(st, PSCR_SUCCESS, 'pscr_solve (complex(c_double_complex))')
      if (refine == 0) then
        call check_le(berr_c64(2_c_int, pencils, shift, nn, u, f), 1e-11_c_double, &
          '2D Helmholtz omega 12 backward error')
      else
        call check_le(berr_c64(2_c_int, pencils, shift, nn, u, f), 1e-14_c_double, &
          '2D Helmholtz omega 12, refine 1, backward error')
      end if
      call pscr_plan_destroy(plan)
    end do
  end subroutine test_helmholtz_2d

  subroutine helmholtz_1d(n, omega, d)
    integer(c_int), intent(in) :: n
    real(c_double), intent(in) :: omega
    type(zdimension_factors), intent(out) :: d
    real(c_double), allocatable :: h(:)
    integer(c_int) :: st
    allocate (h(n - 1), d%ad(n), d%ao(n - 1), d%md(n), d%mo(n - 1))
    st = pscr_mesh_uniform(n - 1, 1.0_c_double, h)
    st = pscr_helmholtz_factors(n, h, omega, d%ad, d%ao, d%md, d%mo)
    call check_st(st, PSCR_SUCCESS, 'pscr_helmholtz_factors n = '//itoa(int(n)))
    ! The first node carries the absorbing boundary: -i omega/2 in A, +i/(2 omega) in M.
    call check(abs(aimag(d%ad(1)) + omega/2) <= 1e-15_c_double*omega .and. &
      abs(aimag(d%md(n)) - 0.5_c_double/omega) <= 1e-15_c_double .and. aimag(d%ad(2)) == 0, &
      'pscr_helmholtz_factors: complex entries (boundary rows)')
  end subroutine helmholtz_1d

  !> 2D Poisson 31 x 40, R32: a plan of the double factors rounded to float;
  !! the residual in double of the widened data.
  subroutine test_float()
    integer(c_int), parameter :: n1 = 31, n2 = 40
    integer, parameter :: nn = n1*n2
    type(dimension_factors), target :: d(2)
    real(c_float), allocatable, target :: sad1(:), sao1(:), smd1(:), sad2(:), sao2(:), smd2(:)
    type(pscr_pencil) :: sp(2), dp(2)
    real(c_float), allocatable :: f(:, :), u(:, :)
    real(c_double) :: bound
    type(c_ptr) :: plan
    integer(c_int) :: st

    call poisson_1d(n1, 0.0_c_double, d(1)%ad, d(1)%ao, d(1)%md)
    call poisson_1d(n2, 0.0_c_double, d(2)%ad, d(2)%ao, d(2)%md)
    sad1 = real(d(1)%ad, c_float)
    sao1 = real(d(1)%ao, c_float)
    smd1 = real(d(1)%md, c_float)
    sad2 = real(d(2)%ad, c_float)
    sao2 = real(d(2)%ao, c_float)
    smd2 = real(d(2)%md, c_float)
    st = pscr_make_pencil(sp(1), sad1, sao1, smd1)
    st = pscr_make_pencil(sp(2), sad2, sao2, smd2)
    ! The double pencils of the float values (exact widenings).
    d(1)%ad = sad1
    d(1)%ao = sao1
    d(1)%md = smd1
    d(2)%ad = sad2
    d(2)%ao = sao2
    d(2)%md = smd2
    st = pscr_make_pencil(dp(1), d(1)%ad, d(1)%ao, d(1)%md)
    st = pscr_make_pencil(dp(2), d(2)%ad, d(2)%ao, d(2)%md)

    st = pscr_plan_create(plan, PSCR_R32, 2, sp, 0.0_c_float, opts)
    call check_st(st, PSCR_SUCCESS, 'pscr_plan_create 2D Poisson 31 x 40, R32')
    if (st /= PSCR_SUCCESS) return
    allocate (f(n2, n1), u(n2, n1))
    call random_number(f)
    st = pscr_solve(plan, f, u)
    call check_st(st, PSCR_SUCCESS, 'pscr_solve (real(c_float))')
    bound = 450*real(epsilon(1.0_c_float), c_double)
    call check_le(berr_r64(2_c_int, dp, 0.0_c_double, nn, real(u, c_double), real(f, c_double)), &
      bound, '2D Poisson R32 backward error (in double, widened data)')
    call pscr_plan_destroy(plan)
  end subroutine test_float

  !> 2D Helmholtz 20 x 24, C32, the same way.
  subroutine test_float_complex()
    integer(c_int), parameter :: n(2) = [20_c_int, 24_c_int]
    integer, parameter :: nn = 20*24
    real(c_double), parameter :: omega = 6
    type(zdimension_factors), target :: d(2)
    type(cdimension_factors), target :: s(2)
    type(pscr_pencil) :: sp(2), dp(2)
    complex(c_double_complex) :: shift
    complex(c_float_complex), allocatable :: f(:), u(:)
    complex(c_double_complex), allocatable :: fd(:)
    type(c_ptr) :: plan
    integer(c_int) :: st
    integer :: k

    shift = cmplx(-omega**2, 0, c_double_complex)
    do k = 1, 2
      call helmholtz_1d(n(k), omega, d(k))
      s(k)%ad = cmplx(d(k)%ad, kind=c_float_complex)
      s(k)%ao = cmplx(d(k)%ao, kind=c_float_complex)
      s(k)%md = cmplx(d(k)%md, kind=c_float_complex)
      s(k)%mo = cmplx(d(k)%mo, kind=c_float_complex)
      st = pscr_make_pencil(sp(k), s(k)%ad, s(k)%ao, s(k)%md, s(k)%mo)
      d(k)%ad = s(k)%ad
      d(k)%ao = s(k)%ao
      d(k)%md = s(k)%md
      d(k)%mo = s(k)%mo
      st = pscr_make_pencil(dp(k), d(k)%ad, d(k)%ao, d(k)%md, d(k)%mo)
    end do
    st = pscr_plan_create(plan, PSCR_C32, 2, sp, cmplx(shift, kind=c_float_complex), opts)
    call check_st(st, PSCR_SUCCESS, 'pscr_plan_create 2D Helmholtz 20 x 24, C32')
    if (st /= PSCR_SUCCESS) return
    allocate (fd(nn), u(nn))
    call random_complex(fd)
    f = cmplx(fd, kind=c_float_complex)
    st = pscr_solve(plan, f, u)
    call check_st(st, PSCR_SUCCESS, 'pscr_solve (complex(c_float_complex))')
    ! The shift, -36, is a float exactly.
    call check_le(berr_c64(2_c_int, dp, shift, nn, cmplx(u, kind=c_double_complex), &
      cmplx(f, kind=c_double_complex)), 450*real(epsilon(1.0_c_float), c_double), &
      '2D Helmholtz C32 backward error (in double, widened data)')
    call pscr_plan_destroy(plan)
  end subroutine test_float_complex

  subroutine test_bad_input()
    integer(c_int), parameter :: n = 8
    type(dimension_factors), target :: d
    type(pscr_pencil) :: pencils(2)
    type(pscr_options) :: o, blank
    type(c_ptr) :: plan
    real(c_double) :: f(n*n), u(n*n), h(n)
    integer(c_int) :: st
    character(len=:), allocatable :: e

    call poisson_1d(n, 0.0_c_double, d%ad, d%ao, d%md)
    pencils = pscr_pencil(n, c_loc(d%ad), c_loc(d%ao), c_loc(d%md), c_null_ptr)

    pencils(2)%n = 0
    st = pscr_plan_create(plan, PSCR_R64, 2, pencils, 0.0_c_double, opts)
    e = pscr_last_error()
    call check(st == PSCR_ERROR_INVALID_VALUE .and. len(e) > 0 .and. &
      .not. c_associated(plan), 'a pencil with n = 0: PSCR_ERROR_INVALID_VALUE, "'// &
      e//'", plan NULL')
    pencils(2)%n = n

    o = opts
    o%refine = 9
    st = pscr_plan_create(plan, PSCR_R64, 2, pencils, 0.0_c_double, o)
    e = pscr_last_error()
    call check(st == PSCR_ERROR_INVALID_VALUE .and. index(e, 'refine') > 0, &
      'options%refine = 9: PSCR_ERROR_INVALID_VALUE, "'//e//'"')

    st = pscr_plan_create(plan, PSCR_R64, 2, pencils, 0.0_c_double, blank)
    e = pscr_last_error()
    call check(st == PSCR_ERROR_INVALID_VALUE, &
      'options not initialized: PSCR_ERROR_INVALID_VALUE, "'//e//'"')

    st = pscr_plan_create(plan, PSCR_R64, 2, pencils, 0.0_c_float, opts)
    e = pscr_last_error()
    call check(st == PSCR_ERROR_INVALID_VALUE .and. index(e, 'real(c_float)') > 0 &
      .and. .not. c_associated(plan), 'a real(c_float) shift for PSCR_R64: '// &
      'PSCR_ERROR_INVALID_VALUE, "'//e//'"')

    st = pscr_plan_create(plan, PSCR_R64, 3, pencils, 0.0_c_double, opts)
    e = pscr_last_error()
    call check(st == PSCR_ERROR_INVALID_VALUE .and. index(e, 'ndim') > 0, &
      'two pencils for ndim 3: PSCR_ERROR_INVALID_VALUE, "'//e//'"')

    st = pscr_poisson_factors(n, h, d%ad, d%ao, d%md)
    e = pscr_last_error()
    call check(st == PSCR_ERROR_INVALID_VALUE .and. index(e, 'h has') > 0, &
      'pscr_poisson_factors with h too short: PSCR_ERROR_INVALID_VALUE, "'// &
      e//'"')

    ! The module's message is cleared by the next call: the library's own.
    st = pscr_mesh_uniform(0_c_int, 1.0_c_double, h)
    e = pscr_last_error()
    call check(st == PSCR_ERROR_INVALID_VALUE .and. index(e, 'nsteps') > 0, &
      'pscr_mesh_uniform nsteps = 0: PSCR_ERROR_INVALID_VALUE, "'//e//'"')

    st = pscr_plan_create(plan, PSCR_R64, 2, pencils, 0.0_c_double, opts)
    e = pscr_last_error()
    call check_st(st, PSCR_SUCCESS, 'pscr_plan_create 8 x 8')
    if (st /= PSCR_SUCCESS) return
    call random_number(f)
    f(5) = ieee_value(1.0_c_double, ieee_quiet_nan)
    u = 3
    st = pscr_solve(plan, f, u)
    e = pscr_last_error()
    call check(st == PSCR_ERROR_NON_FINITE .and. all(u == 3), &
      'a NaN in f: PSCR_ERROR_NON_FINITE, u not written, "'//e//'"')
    call pscr_plan_destroy(plan)
    call pscr_plan_destroy(plan)
    call check(.not. c_associated(plan), 'pscr_plan_destroy of a NULL plan does nothing')
  end subroutine test_bad_input

end program test_fortran
