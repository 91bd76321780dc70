!> pscr: Fortran module over pscr's C API (include/pscr.h), ISO_C_BINDING.
!!
!! use pscr gives pscr.h's constants (statuses, dtypes, backends, methods,
!! planners, flags, stages, PSCR_REFINE_MAX), its structs as bind(C) types
!! (pscr_pencil, pscr_options, pscr_info with pscr_cost and pscr_candidate)
!! and procedures with the C functions' names and argument order:
!!
!!   call pscr_options_init(opts)
!!   st = pscr_plan_create(plan, dtype, ndim, pencils, shift [, opts])
!!   st = pscr_solve(plan, f, u)          ! or pscr_solve(plan, u): in place
!!   st = pscr_solve_batch(plan, nrhs, f, ldf, u, ldu)   ! or (plan, nrhs, u, ld)
!!   call pscr_plan_destroy(plan)
!!   st = pscr_operator_apply(dtype, ndim, pencils, shift, u, out)
!!   st = pscr_operator_norm_inf(dtype, ndim, pencils, shift, norm)
!!   st = pscr_poisson_factors / pscr_helmholtz_factors / pscr_mesh_uniform /
!!        pscr_mesh_graded (...)
!!   st = pscr_make_pencil(pencil, a_diag, a_off, m_diag [, m_off])
!!   pscr_last_error(), pscr_status_string(st), pscr_version(): strings
!!
!! Every function returns the C status as integer(c_int); pscr_last_error()
!! says what failed. A plan is a type(c_ptr) (C's pscr_plan *), NULL when
!! pscr_plan_create fails. See docs/fortran.md.
!!
!! Layout. pscr stores a vector with the LAST dimension fastest (C order):
!! entry (i1, i2, i3), 0-based, at (i1*n2 + i2)*n3 + i3. A Fortran array
!! u(n3, n2, n1) (first index fastest) has exactly that layout, u(i3, i2, i1)
!! 1-based; in 2D u(n2, n1). Arrays of any rank are accepted (assumed rank):
!! only their element sequence counts, so u(n1*n2*n3) does as well.
!!
!! Types. The arrays and the shift have the type of the dtype: PSCR_R64
!! real(c_double), PSCR_C64 complex(c_double_complex), PSCR_R32
!! real(c_float), PSCR_C32 complex(c_float_complex) (C's interleaved
!! (re, im) pairs are Fortran's complex layout). The generic procedures pick
!! the specific one by the Fortran type; pscr_plan_create and the operator
!! functions check that a typed shift matches dtype. pscr_solve cannot see a
!! plan's dtype or size: f and u must have the plan's type and hold
!! n1*n2(*n3) entries (pscr_plan_info tells both), as in C.
!!
!! Pencils hold addresses (type(c_ptr)): build them with c_loc (the arrays
!! need the TARGET attribute) or pscr_make_pencil, from contiguous arrays
!! that live until the call that reads the pencils returns (pscr_plan_create
!! copies them). Non-contiguous array sections are valid f and u: the
!! compiler passes a contiguous copy (slower).
!!
!! SPDX-License-Identifier: BSD-3-Clause
module pscr
  use, intrinsic :: iso_c_binding, only: c_int, c_size_t, c_double, c_float, c_double_complex, &
    c_float_complex, c_char, c_ptr, c_null_ptr, c_null_char, c_loc, c_f_pointer, &
    c_associated, c_sizeof
  implicit none
  private

  ! ------------------------------------------------------------ constants
  !> Statuses (pscr_status; PSCR_STATUS_LIST in pscr.h).
  integer(c_int), parameter, public :: &
    PSCR_SUCCESS = 0, &
    PSCR_ERROR_INVALID_VALUE = 1, &
    PSCR_ERROR_NOT_SUPPORTED = 2, &
    PSCR_ERROR_NON_FINITE = 3, &
    PSCR_ERROR_NOT_DEFINITE = 4, &
    PSCR_ERROR_EIGEN_FAILED = 5, &
    PSCR_ERROR_SINGULAR = 6, &
    PSCR_ERROR_HOST_ALLOC = 7, &
    PSCR_ERROR_DEVICE_ALLOC = 8, &
    PSCR_ERROR_DEVICE = 9
  !> Element types (pscr_dtype).
  integer(c_int), parameter, public :: PSCR_R64 = 0, PSCR_C64 = 1, PSCR_R32 = 2, PSCR_C32 = 3
  !> Backends (pscr_backend).
  integer(c_int), parameter, public :: PSCR_BACKEND_AUTO = 0, PSCR_BACKEND_CPU = 1, &
    PSCR_BACKEND_CUDA = 2
  !> Methods of a reduced dimension (pscr_method).
  integer(c_int), parameter, public :: PSCR_METHOD_AUTO = 0, PSCR_METHOD_REDUCTION = 1, &
    PSCR_METHOD_TRANSFORM = 2
  !> Planners (pscr_planner).
  integer(c_int), parameter, public :: PSCR_PLANNER_NONE = 0, PSCR_PLANNER_ESTIMATE = 1, &
    PSCR_PLANNER_MEASURE = 2
  !> Largest pscr_options%refine.
  integer(c_int), parameter, public :: PSCR_REFINE_MAX = 8
  !> Stage kinds (pscr_stage): indices 0 .. PSCR_STAGE_COUNT-1 of pscr_info%cost
  !! are cost(1) .. cost(PSCR_STAGE_COUNT) here.
  integer(c_int), parameter, public :: PSCR_STAGE_LEVEL3 = 0, PSCR_STAGE_SUMS = 1, &
    PSCR_STAGE_COUPLING = 2, PSCR_STAGE_GATHER = 3, PSCR_STAGE_OTHER = 4, PSCR_STAGE_COUNT = 5
  !> Bits of pscr_options%flags (PSCR_FLAG_LIST in pscr.h; combine with ior).
  integer(c_int), parameter, public :: &
    PSCR_FLAG_NO_MERGE_TOP = ishft(1_c_int, 0), &
    PSCR_FLAG_EIGEN_SCALAR = ishft(1_c_int, 1), &
    PSCR_FLAG_EIGEN_TEAM_NEVER = ishft(1_c_int, 2), &
    PSCR_FLAG_EIGEN_TEAM_ALWAYS = ishft(1_c_int, 3), &
    PSCR_FLAG_EIGEN_SPLIT_NEVER = ishft(1_c_int, 4), &
    PSCR_FLAG_EIGEN_SPLIT_ALWAYS = ishft(1_c_int, 5), &
    PSCR_FLAG_CPU_FIXED_TEAM = ishft(1_c_int, 6), &
    PSCR_FLAG_NO_SINE = ishft(1_c_int, 7), &
    PSCR_FLAG_CUDA_NO_TOEPLITZ = ishft(1_c_int, 8), &
    PSCR_FLAG_CUDA_NO_PIVOT_TABLE = ishft(1_c_int, 9), &
    PSCR_FLAG_CUDA_NO_STAGE = ishft(1_c_int, 10), &
    PSCR_FLAG_CUDA_NO_EARLY_LAUNCH = ishft(1_c_int, 11), &
    PSCR_FLAG_CUDA_PAIR_NEVER = ishft(1_c_int, 12), &
    PSCR_FLAG_CUDA_PAIR_ALWAYS = ishft(1_c_int, 13), &
    PSCR_FLAG_CUDA_COUPLE_ONE = ishft(1_c_int, 14), &
    PSCR_FLAG_CUDA_COUPLE_MANY = ishft(1_c_int, 15), &
    PSCR_FLAG_CUDA_FUSE_NEVER = ishft(1_c_int, 16), &
    PSCR_FLAG_CUDA_FUSE_ALL = ishft(1_c_int, 17), &
    PSCR_FLAG_CUDA_NO_TWIST = ishft(1_c_int, 18), &
    PSCR_FLAG_MPI_LOCAL_PLANS = ishft(1_c_int, 19), &
    PSCR_FLAG_CUDA_PCR_REFINE_ALL = ishft(1_c_int, 20), &
    PSCR_FLAG_CUDA_TF_NO_PARTITION = ishft(1_c_int, 21), &
    PSCR_FLAG_TEST_CUDA_SLAB_1000 = ishft(1_c_int, 24), &
    PSCR_FLAG_TEST_TRANSFORM_PROBE_FAILS = ishft(1_c_int, 25), &
    PSCR_FLAG_TEST_MEASURE_TRANSFORM_FAILS = ishft(1_c_int, 26)

  ! ---------------------------------------------------------------- types
  !> A symmetric tridiagonal pencil (A, M) of order n (C's pscr_pencil):
  !! addresses of n, n-1, n and n-1 entries of the plan's type; m_off NULL
  !! (c_null_ptr) for a diagonal M, a_off NULL allowed when n = 1. The
  !! defaults (n = 0, NULL) are rejected by every call.
  type, bind(C), public :: pscr_pencil
    integer(c_int) :: n = 0
    type(c_ptr) :: a_diag = c_null_ptr
    type(c_ptr) :: a_off = c_null_ptr
    type(c_ptr) :: m_diag = c_null_ptr
    type(c_ptr) :: m_off = c_null_ptr
  end type pscr_pencil

  !> Plan options (C's pscr_options, field by field; enums are C ints,
  !! flags is C's unsigned int). Initialize with pscr_options_init, then
  !! change what you need; options left at these component defaults (size
  !! 0) are refused by pscr_plan_create. method(1) is C's method[0]
  !! (dimension 1), method(2) C's method[1].
  type, bind(C), public :: pscr_options
    integer(c_size_t) :: size = 0
    integer(c_int) :: backend = 0
    integer(c_int) :: device = 0
    integer(c_int) :: num_threads = 0
    integer(c_int) :: check_finite = 0
    integer(c_int) :: cuda_rows_per_thread = 0
    integer(c_int) :: max_batch = 0
    integer(c_int) :: flags = 0
    integer(c_int) :: method(2) = 0
    integer(c_int) :: planner = 0
    integer(c_int) :: refine = 0
    integer(c_int) :: refine_single = 0
    integer(c_int) :: device_only = 0
  end type pscr_options

  !> Modelled work of one solve in one stage kind (C's pscr_cost).
  type, bind(C), public :: pscr_cost
    real(c_double) :: flops
    real(c_double) :: bytes
    real(c_double) :: launches
  end type pscr_cost

  !> One method vector a planner considered (C's pscr_candidate); reason is
  !! a NUL-terminated C string.
  type, bind(C), public :: pscr_candidate
    integer(c_int) :: method(2)
    integer(c_int) :: status
    character(kind=c_char) :: reason(160)
    real(c_double) :: estimate_seconds
    real(c_double) :: measured_seconds
  end type pscr_candidate

  !> What a plan is, as built (C's pscr_info, filled by pscr_plan_info).
  !! Arrays are 1-based here: n(1) is C's n[0], cost(1) the cost of stage
  !! kind PSCR_STAGE_LEVEL3, candidate(chosen + 1) the chosen candidate.
  type, bind(C), public :: pscr_info
    integer(c_size_t) :: size
    integer(c_int) :: backend
    integer(c_int) :: num_threads
    integer(c_int) :: dtype
    integer(c_int) :: ndim
    integer(c_int) :: n(3)
    integer(c_int) :: levels(2)
    integer(c_size_t) :: eigenpairs
    integer(c_size_t) :: workspace_bytes
    integer(c_size_t) :: device_bytes
    integer(c_int) :: level3_rows_per_thread
    integer(c_int) :: level3_threads_per_system
    integer(c_int) :: level3_toeplitz
    integer(c_int) :: level3_pivot_table
    integer(c_int) :: level3_staged
    integer(c_int) :: level3_fused_levels
    integer(c_int) :: level3_fused_back
    integer(c_int) :: cuda_early_launch
    type(pscr_cost) :: cost(PSCR_STAGE_COUNT)
    type(pscr_cost) :: cost_total
    real(c_double) :: min_bytes
    integer(c_int) :: method(2)
    real(c_double) :: transform_defect(2)
    integer(c_int) :: ncandidates
    integer(c_int) :: chosen
    type(pscr_candidate) :: candidate(4)
    real(c_double) :: plan_seconds
    integer(c_int) :: transform_sine(2)
  end type pscr_info

  ! ----------------------------------------------------------- procedures
  public :: pscr_options_init, pscr_plan_create, pscr_plan_destroy, pscr_plan_info
  public :: pscr_solve, pscr_solve_batch, pscr_solve_device, pscr_solve_device_batch
  public :: pscr_operator_apply, pscr_operator_norm_inf
  public :: pscr_poisson_factors, pscr_helmholtz_factors, pscr_mesh_uniform, pscr_mesh_graded
  public :: pscr_make_pencil
  public :: pscr_last_error, pscr_status_string, pscr_version, pscr_version_get
  public :: pscr_flag_name, pscr_stage_name

  !> st = pscr_plan_create(plan, dtype, ndim, pencils, shift [, opts]):
  !! shift of the dtype's type (checked), or type(c_ptr) to one value of it;
  !! pencils(1:ndim) dimension 1 first; opts absent: the defaults.
  interface pscr_plan_create
    module procedure plan_create_r64, plan_create_c64, plan_create_r32, plan_create_c32, &
      plan_create_ptr
  end interface pscr_plan_create

  !> st = pscr_solve(plan, f, u) solves A u = f; st = pscr_solve(plan, u)
  !! overwrites u (holding f) with the solution. Arrays of the plan's type,
  !! any rank; or type(c_ptr) f and u (host addresses; f == u allowed).
  interface pscr_solve
    module procedure solve_r64, solve_c64, solve_r32, solve_c32, &
      solve_inplace_r64, solve_inplace_c64, solve_inplace_r32, solve_inplace_c32, solve_ptr
  end interface pscr_solve

  !> st = pscr_solve_batch(plan, nrhs, f, ldf, u, ldu): right-hand side r
  !! (1-based) starts at element (r-1)*ldf + 1 of f, its solution at
  !! (r-1)*ldu + 1 of u; ldf and ldu are integer(c_size_t). In place:
  !! pscr_solve_batch(plan, nrhs, u, ld). Or type(c_ptr) f and u.
  interface pscr_solve_batch
    module procedure batch_r64, batch_c64, batch_r32, batch_c32, &
      batch_inplace_r64, batch_inplace_c64, batch_inplace_r32, batch_inplace_c32, batch_ptr
  end interface pscr_solve_batch

  !> st = pscr_operator_apply(dtype, ndim, pencils, shift, u, out): out = A u.
  interface pscr_operator_apply
    module procedure apply_r64, apply_c64, apply_r32, apply_c32, apply_ptr
  end interface pscr_operator_apply

  !> st = pscr_operator_norm_inf(dtype, ndim, pencils, shift, norm):
  !! norm = ||A||_inf, real(c_double) for every dtype.
  interface pscr_operator_norm_inf
    module procedure norm_r64, norm_c64, norm_r32, norm_c32, norm_ptr
  end interface pscr_operator_norm_inf

  !> st = pscr_make_pencil(pencil, a_diag, a_off, m_diag [, m_off]): the
  !! pencil of order n = size(a_diag) over these arrays (contiguous, with
  !! the TARGET attribute, alive while the pencil is used); m_off absent:
  !! M diagonal. a_off may be empty when n = 1. Arrays shorter than n
  !! (a_off, m_off: n-1) give PSCR_ERROR_INVALID_VALUE.
  interface pscr_make_pencil
    module procedure pencil_r64, pencil_c64, pencil_r32, pencil_c32
  end interface pscr_make_pencil

  ! ------------------------------------------------------ the C functions
  interface
    function c_options_init_size(opts, size) bind(C, name="pscr_options_init_size") result(st)
      import :: pscr_options, c_size_t, c_int
      type(pscr_options), intent(inout) :: opts
      integer(c_size_t), value :: size
      integer(c_int) :: st
    end function c_options_init_size

    function c_plan_create(plan, dtype, ndim, pencils, shift, opts) &
        bind(C, name="pscr_plan_create") result(st)
      import :: c_ptr, c_int
      type(c_ptr), intent(out) :: plan
      integer(c_int), value :: dtype, ndim
      type(c_ptr), value :: pencils, shift, opts
      integer(c_int) :: st
    end function c_plan_create

    subroutine c_plan_destroy(plan) bind(C, name="pscr_plan_destroy")
      import :: c_ptr
      type(c_ptr), value :: plan
    end subroutine c_plan_destroy

    function c_plan_info_size(plan, info, size) bind(C, name="pscr_plan_info_size") result(st)
      import :: c_ptr, pscr_info, c_size_t, c_int
      type(c_ptr), value :: plan
      type(pscr_info), intent(inout) :: info
      integer(c_size_t), value :: size
      integer(c_int) :: st
    end function c_plan_info_size

    function c_solve(plan, f, u) bind(C, name="pscr_solve") result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: plan, f, u
      integer(c_int) :: st
    end function c_solve

    function c_solve_batch(plan, nrhs, f, ldf, u, ldu) bind(C, name="pscr_solve_batch") &
        result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: plan
      integer(c_int), value :: nrhs
      type(c_ptr), value :: f
      integer(c_size_t), value :: ldf
      type(c_ptr), value :: u
      integer(c_size_t), value :: ldu
      integer(c_int) :: st
    end function c_solve_batch

    function c_solve_device(plan, f, u, stream) bind(C, name="pscr_solve_device") result(st)
      import :: c_ptr, c_int
      type(c_ptr), value :: plan, f, u, stream
      integer(c_int) :: st
    end function c_solve_device

    function c_solve_device_batch(plan, nrhs, f, ldf, u, ldu, stream) &
        bind(C, name="pscr_solve_device_batch") result(st)
      import :: c_ptr, c_int, c_size_t
      type(c_ptr), value :: plan
      integer(c_int), value :: nrhs
      type(c_ptr), value :: f
      integer(c_size_t), value :: ldf
      type(c_ptr), value :: u
      integer(c_size_t), value :: ldu
      type(c_ptr), value :: stream
      integer(c_int) :: st
    end function c_solve_device_batch

    function c_operator_apply(dtype, ndim, pencils, shift, u, out) &
        bind(C, name="pscr_operator_apply") result(st)
      import :: c_ptr, c_int
      integer(c_int), value :: dtype, ndim
      type(c_ptr), value :: pencils, shift, u, out
      integer(c_int) :: st
    end function c_operator_apply

    function c_operator_norm_inf(dtype, ndim, pencils, shift, norm) &
        bind(C, name="pscr_operator_norm_inf") result(st)
      import :: c_ptr, c_int, c_double
      integer(c_int), value :: dtype, ndim
      type(c_ptr), value :: pencils, shift
      real(c_double), intent(out) :: norm
      integer(c_int) :: st
    end function c_operator_norm_inf

    function c_poisson_factors(n, h, a_diag, a_off, m_diag, m_off) &
        bind(C, name="pscr_poisson_factors") result(st)
      import :: c_ptr, c_int
      integer(c_int), value :: n
      type(c_ptr), value :: h, a_diag, a_off, m_diag, m_off
      integer(c_int) :: st
    end function c_poisson_factors

    function c_helmholtz_factors(n, h, omega, a_diag, a_off, m_diag, m_off) &
        bind(C, name="pscr_helmholtz_factors") result(st)
      import :: c_ptr, c_int, c_double
      integer(c_int), value :: n
      type(c_ptr), value :: h
      real(c_double), value :: omega
      type(c_ptr), value :: a_diag, a_off, m_diag, m_off
      integer(c_int) :: st
    end function c_helmholtz_factors

    function c_mesh_uniform(nsteps, length, h) bind(C, name="pscr_mesh_uniform") result(st)
      import :: c_ptr, c_int, c_double
      integer(c_int), value :: nsteps
      real(c_double), value :: length
      type(c_ptr), value :: h
      integer(c_int) :: st
    end function c_mesh_uniform

    function c_mesh_graded(nsteps, length, grading, h) bind(C, name="pscr_mesh_graded") &
        result(st)
      import :: c_ptr, c_int, c_double
      integer(c_int), value :: nsteps
      real(c_double), value :: length, grading
      type(c_ptr), value :: h
      integer(c_int) :: st
    end function c_mesh_graded

    function c_status_string(st) bind(C, name="pscr_status_string") result(s)
      import :: c_ptr, c_int
      integer(c_int), value :: st
      type(c_ptr) :: s
    end function c_status_string

    function c_last_error() bind(C, name="pscr_last_error") result(s)
      import :: c_ptr
      type(c_ptr) :: s
    end function c_last_error

    function c_version() bind(C, name="pscr_version") result(s)
      import :: c_ptr
      type(c_ptr) :: s
    end function c_version

    subroutine c_version_get(major, minor, patch) bind(C, name="pscr_version_get")
      import :: c_int
      integer(c_int), intent(out), optional :: major, minor, patch
    end subroutine c_version_get

    function c_flag_name(flag) bind(C, name="pscr_flag_name") result(s)
      import :: c_ptr, c_int
      integer(c_int), value :: flag ! C's unsigned int
      type(c_ptr) :: s
    end function c_flag_name

    function c_stage_name(stage) bind(C, name="pscr_stage_name") result(s)
      import :: c_ptr, c_int
      integer(c_int), value :: stage
      type(c_ptr) :: s
    end function c_stage_name

    function c_strlen(s) bind(C, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function c_strlen

    ! The module's own error detail (pscr_fortran_error.c).
    subroutine c_error_clear() bind(C, name="pscr_fortran_error_clear")
    end subroutine c_error_clear

    subroutine c_error_set(msg) bind(C, name="pscr_fortran_error_set")
      import :: c_char
      character(kind=c_char), intent(in) :: msg(*)
    end subroutine c_error_set

    function c_error_get() bind(C, name="pscr_fortran_error_get") result(s)
      import :: c_ptr
      type(c_ptr) :: s
    end function c_error_get
  end interface

contains

  ! ------------------------------------------------------------- helpers

  !> The address of an array's first element; NULL for an empty array
  !! (c_loc needs a nonzero size). a is contiguous and a TARGET in every
  !! caller, so the address is that of the caller's own array.
  function addr_(a) result(p)
    type(*), intent(in), target, contiguous :: a(..)
    type(c_ptr) :: p
    p = c_null_ptr
    if (size(a) > 0) p = c_loc(a)
  end function addr_

  !> A Fortran string of a C string (NULL: empty).
  function c_string_(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: n, i
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = int(c_strlen(p))
    allocate (character(len=n) :: s)
    if (n == 0) return
    call c_f_pointer(p, chars, [n])
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function c_string_

  function itoa_(i) result(s)
    integer, intent(in) :: i
    character(len=:), allocatable :: s
    character(len=24) :: buf
    write (buf, '(i0)') i
    s = trim(buf)
  end function itoa_

  !> Fail with the module's own message: PSCR_ERROR_INVALID_VALUE.
  function fail_(msg) result(st)
    character(len=*), intent(in) :: msg
    integer(c_int) :: st
    call c_error_set(msg//c_null_char)
    st = PSCR_ERROR_INVALID_VALUE
  end function fail_

  function dtype_type_(dtype) result(s)
    integer(c_int), intent(in) :: dtype
    character(len=:), allocatable :: s
    select case (dtype)
    case (PSCR_R64)
      s = 'real(c_double)'
    case (PSCR_C64)
      s = 'complex(c_double_complex)'
    case (PSCR_R32)
      s = 'real(c_float)'
    case default
      s = 'complex(c_float_complex)'
    end select
  end function dtype_type_

  !> The checks of the calls with pencils and a shift: a typed shift
  !! (shift_dtype >= 0) of another type than a known dtype's, or fewer
  !! pencils than a valid ndim. Everything else is the library's to check.
  function check_call_(dtype, shift_dtype, ndim, npencils) result(st)
    integer(c_int), intent(in) :: dtype, shift_dtype, ndim
    integer, intent(in) :: npencils
    integer(c_int) :: st
    st = PSCR_SUCCESS
    if (shift_dtype >= 0 .and. dtype >= PSCR_R64 .and. dtype <= PSCR_C32 .and. &
        dtype /= shift_dtype) then
      st = fail_('shift is '//dtype_type_(shift_dtype)//' but dtype '//itoa_(int(dtype))// &
        ' takes '//dtype_type_(dtype))
    else if ((ndim == 2 .or. ndim == 3) .and. npencils < ndim) then
      st = fail_('pencils has '//itoa_(npencils)//' entries, fewer than ndim = '// &
        itoa_(int(ndim)))
    end if
  end function check_call_

  !> An array too short for what the library writes or reads there.
  function short_(name, have, need, what) result(bad)
    character(len=*), intent(in) :: name, what
    integer, intent(in) :: have, need
    logical :: bad
    integer(c_int) :: st
    bad = have < need
    if (bad) st = fail_(name//' has '//itoa_(have)//' entries, '//what//' = '//itoa_(need)// &
      ' needed')
  end function short_

  ! -------------------------------------------------------- version, errors

  !> Detail of the last error in the calling thread ('' when none): the
  !! module's own check, or the library's pscr_last_error().
  function pscr_last_error() result(s)
    character(len=:), allocatable :: s
    s = c_string_(c_error_get())
    if (len(s) == 0) s = c_string_(c_last_error())
  end function pscr_last_error

  !> Text of a status, e.g. 'PSCR_ERROR_INVALID_VALUE: invalid value: ...'.
  function pscr_status_string(st) result(s)
    integer(c_int), intent(in) :: st
    character(len=:), allocatable :: s
    s = c_string_(c_status_string(st))
  end function pscr_status_string

  !> Version of the library loaded, 'MAJOR.MINOR.PATCH'.
  function pscr_version() result(s)
    character(len=:), allocatable :: s
    s = c_string_(c_version())
  end function pscr_version

  !> Version of the library loaded, as numbers (each optional).
  subroutine pscr_version_get(major, minor, patch)
    integer(c_int), intent(out), optional :: major, minor, patch
    call c_version_get(major, minor, patch)
  end subroutine pscr_version_get

  !> Command-line name of one flag bit ('no-merge-top', ...); '' when flag
  !! is not exactly one known bit.
  function pscr_flag_name(flag) result(s)
    integer(c_int), intent(in) :: flag
    character(len=:), allocatable :: s
    s = c_string_(c_flag_name(flag))
  end function pscr_flag_name

  !> Name of a stage kind ('level3', 'sums', ...; 'unknown').
  function pscr_stage_name(stage) result(s)
    integer(c_int), intent(in) :: stage
    character(len=:), allocatable :: s
    s = c_string_(c_stage_name(stage))
  end function pscr_stage_name

  ! ------------------------------------------------------------ plans

  !> The defaults of every option (pscr_options_init_size with this
  !! module's struct size).
  subroutine pscr_options_init(opts)
    type(pscr_options), intent(out) :: opts
    integer(c_int) :: st
    st = c_options_init_size(opts, c_sizeof(opts)) ! cannot fail: opts is not NULL and
    ! c_sizeof(opts) is C's sizeof(pscr_options) (test_fortran checks the layout)
  end subroutine pscr_options_init

  !> Describe a plan (pscr_plan_info_size with this module's struct size).
  function pscr_plan_info(plan, info) result(st)
    type(c_ptr), intent(in) :: plan
    type(pscr_info), intent(out) :: info
    integer(c_int) :: st
    call c_error_clear()
    st = c_plan_info_size(plan, info, c_sizeof(info))
  end function pscr_plan_info

  !> Release a plan (NULL: nothing happens); plan is NULL afterwards.
  subroutine pscr_plan_destroy(plan)
    type(c_ptr), intent(inout) :: plan
    call c_plan_destroy(plan)
    plan = c_null_ptr
  end subroutine pscr_plan_destroy

  function plan_create_(plan, dtype, ndim, pencils, shift, shift_dtype, opts) result(st)
    type(c_ptr), intent(out) :: plan
    integer(c_int), intent(in) :: dtype, ndim, shift_dtype
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    type(c_ptr), intent(in) :: shift
    type(pscr_options), intent(in), target, optional :: opts
    integer(c_int) :: st
    type(c_ptr) :: popts
    plan = c_null_ptr
    call c_error_clear()
    st = check_call_(dtype, shift_dtype, ndim, size(pencils))
    if (st /= PSCR_SUCCESS) return
    popts = c_null_ptr
    if (present(opts)) popts = c_loc(opts)
    st = c_plan_create(plan, dtype, ndim, addr_(pencils), shift, popts)
  end function plan_create_

  function plan_create_r64(plan, dtype, ndim, pencils, shift, opts) result(st)
    type(c_ptr), intent(out) :: plan
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    real(c_double), intent(in), target :: shift
    type(pscr_options), intent(in), target, optional :: opts
    integer(c_int) :: st
    st = plan_create_(plan, dtype, ndim, pencils, c_loc(shift), PSCR_R64, opts)
  end function plan_create_r64

  function plan_create_c64(plan, dtype, ndim, pencils, shift, opts) result(st)
    type(c_ptr), intent(out) :: plan
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    complex(c_double_complex), intent(in), target :: shift
    type(pscr_options), intent(in), target, optional :: opts
    integer(c_int) :: st
    st = plan_create_(plan, dtype, ndim, pencils, c_loc(shift), PSCR_C64, opts)
  end function plan_create_c64

  function plan_create_r32(plan, dtype, ndim, pencils, shift, opts) result(st)
    type(c_ptr), intent(out) :: plan
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    real(c_float), intent(in), target :: shift
    type(pscr_options), intent(in), target, optional :: opts
    integer(c_int) :: st
    st = plan_create_(plan, dtype, ndim, pencils, c_loc(shift), PSCR_R32, opts)
  end function plan_create_r32

  function plan_create_c32(plan, dtype, ndim, pencils, shift, opts) result(st)
    type(c_ptr), intent(out) :: plan
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    complex(c_float_complex), intent(in), target :: shift
    type(pscr_options), intent(in), target, optional :: opts
    integer(c_int) :: st
    st = plan_create_(plan, dtype, ndim, pencils, c_loc(shift), PSCR_C32, opts)
  end function plan_create_c32

  function plan_create_ptr(plan, dtype, ndim, pencils, shift, opts) result(st)
    type(c_ptr), intent(out) :: plan
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    type(c_ptr), intent(in) :: shift
    type(pscr_options), intent(in), target, optional :: opts
    integer(c_int) :: st
    st = plan_create_(plan, dtype, ndim, pencils, shift, -1_c_int, opts)
  end function plan_create_ptr

  ! ------------------------------------------------------------ solves

  function solve_r64(plan, f, u) result(st)
    type(c_ptr), intent(in) :: plan
    real(c_double), intent(in), target, contiguous :: f(..)
    real(c_double), intent(inout), target, contiguous :: u(..)
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve(plan, addr_(f), addr_(u))
  end function solve_r64

  function solve_c64(plan, f, u) result(st)
    type(c_ptr), intent(in) :: plan
    complex(c_double_complex), intent(in), target, contiguous :: f(..)
    complex(c_double_complex), intent(inout), target, contiguous :: u(..)
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve(plan, addr_(f), addr_(u))
  end function solve_c64

  function solve_r32(plan, f, u) result(st)
    type(c_ptr), intent(in) :: plan
    real(c_float), intent(in), target, contiguous :: f(..)
    real(c_float), intent(inout), target, contiguous :: u(..)
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve(plan, addr_(f), addr_(u))
  end function solve_r32

  function solve_c32(plan, f, u) result(st)
    type(c_ptr), intent(in) :: plan
    complex(c_float_complex), intent(in), target, contiguous :: f(..)
    complex(c_float_complex), intent(inout), target, contiguous :: u(..)
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve(plan, addr_(f), addr_(u))
  end function solve_c32

  function solve_inplace_r64(plan, u) result(st)
    type(c_ptr), intent(in) :: plan
    real(c_double), intent(inout), target, contiguous :: u(..)
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve(plan, addr_(u), addr_(u))
  end function solve_inplace_r64

  function solve_inplace_c64(plan, u) result(st)
    type(c_ptr), intent(in) :: plan
    complex(c_double_complex), intent(inout), target, contiguous :: u(..)
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve(plan, addr_(u), addr_(u))
  end function solve_inplace_c64

  function solve_inplace_r32(plan, u) result(st)
    type(c_ptr), intent(in) :: plan
    real(c_float), intent(inout), target, contiguous :: u(..)
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve(plan, addr_(u), addr_(u))
  end function solve_inplace_r32

  function solve_inplace_c32(plan, u) result(st)
    type(c_ptr), intent(in) :: plan
    complex(c_float_complex), intent(inout), target, contiguous :: u(..)
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve(plan, addr_(u), addr_(u))
  end function solve_inplace_c32

  function solve_ptr(plan, f, u) result(st)
    type(c_ptr), intent(in) :: plan, f, u
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve(plan, f, u)
  end function solve_ptr

  function batch_r64(plan, nrhs, f, ldf, u, ldu) result(st)
    type(c_ptr), intent(in) :: plan
    integer(c_int), intent(in) :: nrhs
    real(c_double), intent(in), target, contiguous :: f(..)
    integer(c_size_t), intent(in) :: ldf, ldu
    real(c_double), intent(inout), target, contiguous :: u(..)
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve_batch(plan, nrhs, addr_(f), ldf, addr_(u), ldu)
  end function batch_r64

  function batch_c64(plan, nrhs, f, ldf, u, ldu) result(st)
    type(c_ptr), intent(in) :: plan
    integer(c_int), intent(in) :: nrhs
    complex(c_double_complex), intent(in), target, contiguous :: f(..)
    integer(c_size_t), intent(in) :: ldf, ldu
    complex(c_double_complex), intent(inout), target, contiguous :: u(..)
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve_batch(plan, nrhs, addr_(f), ldf, addr_(u), ldu)
  end function batch_c64

  function batch_r32(plan, nrhs, f, ldf, u, ldu) result(st)
    type(c_ptr), intent(in) :: plan
    integer(c_int), intent(in) :: nrhs
    real(c_float), intent(in), target, contiguous :: f(..)
    integer(c_size_t), intent(in) :: ldf, ldu
    real(c_float), intent(inout), target, contiguous :: u(..)
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve_batch(plan, nrhs, addr_(f), ldf, addr_(u), ldu)
  end function batch_r32

  function batch_c32(plan, nrhs, f, ldf, u, ldu) result(st)
    type(c_ptr), intent(in) :: plan
    integer(c_int), intent(in) :: nrhs
    complex(c_float_complex), intent(in), target, contiguous :: f(..)
    integer(c_size_t), intent(in) :: ldf, ldu
    complex(c_float_complex), intent(inout), target, contiguous :: u(..)
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve_batch(plan, nrhs, addr_(f), ldf, addr_(u), ldu)
  end function batch_c32

  function batch_inplace_r64(plan, nrhs, u, ld) result(st)
    type(c_ptr), intent(in) :: plan
    integer(c_int), intent(in) :: nrhs
    real(c_double), intent(inout), target, contiguous :: u(..)
    integer(c_size_t), intent(in) :: ld
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve_batch(plan, nrhs, addr_(u), ld, addr_(u), ld)
  end function batch_inplace_r64

  function batch_inplace_c64(plan, nrhs, u, ld) result(st)
    type(c_ptr), intent(in) :: plan
    integer(c_int), intent(in) :: nrhs
    complex(c_double_complex), intent(inout), target, contiguous :: u(..)
    integer(c_size_t), intent(in) :: ld
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve_batch(plan, nrhs, addr_(u), ld, addr_(u), ld)
  end function batch_inplace_c64

  function batch_inplace_r32(plan, nrhs, u, ld) result(st)
    type(c_ptr), intent(in) :: plan
    integer(c_int), intent(in) :: nrhs
    real(c_float), intent(inout), target, contiguous :: u(..)
    integer(c_size_t), intent(in) :: ld
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve_batch(plan, nrhs, addr_(u), ld, addr_(u), ld)
  end function batch_inplace_r32

  function batch_inplace_c32(plan, nrhs, u, ld) result(st)
    type(c_ptr), intent(in) :: plan
    integer(c_int), intent(in) :: nrhs
    complex(c_float_complex), intent(inout), target, contiguous :: u(..)
    integer(c_size_t), intent(in) :: ld
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve_batch(plan, nrhs, addr_(u), ld, addr_(u), ld)
  end function batch_inplace_c32

  function batch_ptr(plan, nrhs, f, ldf, u, ldu) result(st)
    type(c_ptr), intent(in) :: plan
    integer(c_int), intent(in) :: nrhs
    type(c_ptr), intent(in) :: f, u
    integer(c_size_t), intent(in) :: ldf, ldu
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve_batch(plan, nrhs, f, ldf, u, ldu)
  end function batch_ptr

  !> pscr_solve_device: device addresses f and u, a cudaStream_t (or
  !! c_null_ptr: the default stream); a CUDA plan.
  function pscr_solve_device(plan, f, u, stream) result(st)
    type(c_ptr), intent(in) :: plan, f, u, stream
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve_device(plan, f, u, stream)
  end function pscr_solve_device

  !> pscr_solve_device_batch: as pscr_solve_batch with device addresses.
  function pscr_solve_device_batch(plan, nrhs, f, ldf, u, ldu, stream) result(st)
    type(c_ptr), intent(in) :: plan
    integer(c_int), intent(in) :: nrhs
    type(c_ptr), intent(in) :: f, u, stream
    integer(c_size_t), intent(in) :: ldf, ldu
    integer(c_int) :: st
    call c_error_clear()
    st = c_solve_device_batch(plan, nrhs, f, ldf, u, ldu, stream)
  end function pscr_solve_device_batch

  ! ---------------------------------------------------------- operator

  function apply_(dtype, ndim, pencils, shift, shift_dtype, u, out) result(st)
    integer(c_int), intent(in) :: dtype, ndim, shift_dtype
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    type(c_ptr), intent(in) :: shift, u, out
    integer(c_int) :: st
    call c_error_clear()
    st = check_call_(dtype, shift_dtype, ndim, size(pencils))
    if (st /= PSCR_SUCCESS) return
    st = c_operator_apply(dtype, ndim, addr_(pencils), shift, u, out)
  end function apply_

  function apply_r64(dtype, ndim, pencils, shift, u, out) result(st)
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    real(c_double), intent(in), target :: shift
    real(c_double), intent(in), target, contiguous :: u(..)
    real(c_double), intent(inout), target, contiguous :: out(..)
    integer(c_int) :: st
    st = apply_(dtype, ndim, pencils, c_loc(shift), PSCR_R64, addr_(u), addr_(out))
  end function apply_r64

  function apply_c64(dtype, ndim, pencils, shift, u, out) result(st)
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    complex(c_double_complex), intent(in), target :: shift
    complex(c_double_complex), intent(in), target, contiguous :: u(..)
    complex(c_double_complex), intent(inout), target, contiguous :: out(..)
    integer(c_int) :: st
    st = apply_(dtype, ndim, pencils, c_loc(shift), PSCR_C64, addr_(u), addr_(out))
  end function apply_c64

  function apply_r32(dtype, ndim, pencils, shift, u, out) result(st)
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    real(c_float), intent(in), target :: shift
    real(c_float), intent(in), target, contiguous :: u(..)
    real(c_float), intent(inout), target, contiguous :: out(..)
    integer(c_int) :: st
    st = apply_(dtype, ndim, pencils, c_loc(shift), PSCR_R32, addr_(u), addr_(out))
  end function apply_r32

  function apply_c32(dtype, ndim, pencils, shift, u, out) result(st)
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    complex(c_float_complex), intent(in), target :: shift
    complex(c_float_complex), intent(in), target, contiguous :: u(..)
    complex(c_float_complex), intent(inout), target, contiguous :: out(..)
    integer(c_int) :: st
    st = apply_(dtype, ndim, pencils, c_loc(shift), PSCR_C32, addr_(u), addr_(out))
  end function apply_c32

  function apply_ptr(dtype, ndim, pencils, shift, u, out) result(st)
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    type(c_ptr), intent(in) :: shift, u, out
    integer(c_int) :: st
    st = apply_(dtype, ndim, pencils, shift, -1_c_int, u, out)
  end function apply_ptr

  function norm_(dtype, ndim, pencils, shift, shift_dtype, norm) result(st)
    integer(c_int), intent(in) :: dtype, ndim, shift_dtype
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    type(c_ptr), intent(in) :: shift
    real(c_double), intent(out) :: norm
    integer(c_int) :: st
    norm = 0
    call c_error_clear()
    st = check_call_(dtype, shift_dtype, ndim, size(pencils))
    if (st /= PSCR_SUCCESS) return
    st = c_operator_norm_inf(dtype, ndim, addr_(pencils), shift, norm)
  end function norm_

  function norm_r64(dtype, ndim, pencils, shift, norm) result(st)
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    real(c_double), intent(in), target :: shift
    real(c_double), intent(out) :: norm
    integer(c_int) :: st
    st = norm_(dtype, ndim, pencils, c_loc(shift), PSCR_R64, norm)
  end function norm_r64

  function norm_c64(dtype, ndim, pencils, shift, norm) result(st)
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    complex(c_double_complex), intent(in), target :: shift
    real(c_double), intent(out) :: norm
    integer(c_int) :: st
    st = norm_(dtype, ndim, pencils, c_loc(shift), PSCR_C64, norm)
  end function norm_c64

  function norm_r32(dtype, ndim, pencils, shift, norm) result(st)
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    real(c_float), intent(in), target :: shift
    real(c_double), intent(out) :: norm
    integer(c_int) :: st
    st = norm_(dtype, ndim, pencils, c_loc(shift), PSCR_R32, norm)
  end function norm_r32

  function norm_c32(dtype, ndim, pencils, shift, norm) result(st)
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    complex(c_float_complex), intent(in), target :: shift
    real(c_double), intent(out) :: norm
    integer(c_int) :: st
    st = norm_(dtype, ndim, pencils, c_loc(shift), PSCR_C32, norm)
  end function norm_c32

  function norm_ptr(dtype, ndim, pencils, shift, norm) result(st)
    integer(c_int), intent(in) :: dtype, ndim
    type(pscr_pencil), intent(in), target, contiguous :: pencils(:)
    type(c_ptr), intent(in) :: shift
    real(c_double), intent(out) :: norm
    integer(c_int) :: st
    st = norm_(dtype, ndim, pencils, shift, -1_c_int, norm)
  end function norm_ptr

  ! ------------------------------------------------------------ pencils

  !> The common part of pscr_make_pencil: sizes checked, addresses taken.
  function pencil_(pencil, n, na_off, nm_diag, nm_off, a_diag, a_off, m_diag, m_off) result(st)
    type(pscr_pencil), intent(out) :: pencil
    integer, intent(in) :: n, na_off, nm_diag, nm_off ! nm_off < 0: absent
    type(c_ptr), intent(in) :: a_diag, a_off, m_diag, m_off
    integer(c_int) :: st
    call c_error_clear()
    st = PSCR_SUCCESS
    if (n < 1) then
      st = fail_('a_diag is empty: a pencil has n >= 1 entries')
    else if (short_('a_off', na_off, n - 1, 'n-1')) then
      st = PSCR_ERROR_INVALID_VALUE
    else if (short_('m_diag', nm_diag, n, 'n')) then
      st = PSCR_ERROR_INVALID_VALUE
    else if (nm_off >= 0) then
      if (short_('m_off', nm_off, n - 1, 'n-1')) st = PSCR_ERROR_INVALID_VALUE
    end if
    if (st /= PSCR_SUCCESS) return
    pencil = pscr_pencil(int(n, c_int), a_diag, a_off, m_diag, m_off)
  end function pencil_

  function pencil_r64(pencil, a_diag, a_off, m_diag, m_off) result(st)
    type(pscr_pencil), intent(out) :: pencil
    real(c_double), intent(in), target, contiguous :: a_diag(:), a_off(:), m_diag(:)
    real(c_double), intent(in), target, contiguous, optional :: m_off(:)
    integer(c_int) :: st
    if (present(m_off)) then
      st = pencil_(pencil, size(a_diag), size(a_off), size(m_diag), size(m_off), &
        addr_(a_diag), addr_(a_off), addr_(m_diag), addr_(m_off))
    else
      st = pencil_(pencil, size(a_diag), size(a_off), size(m_diag), -1, &
        addr_(a_diag), addr_(a_off), addr_(m_diag), c_null_ptr)
    end if
  end function pencil_r64

  function pencil_c64(pencil, a_diag, a_off, m_diag, m_off) result(st)
    type(pscr_pencil), intent(out) :: pencil
    complex(c_double_complex), intent(in), target, contiguous :: a_diag(:), a_off(:), m_diag(:)
    complex(c_double_complex), intent(in), target, contiguous, optional :: m_off(:)
    integer(c_int) :: st
    if (present(m_off)) then
      st = pencil_(pencil, size(a_diag), size(a_off), size(m_diag), size(m_off), &
        addr_(a_diag), addr_(a_off), addr_(m_diag), addr_(m_off))
    else
      st = pencil_(pencil, size(a_diag), size(a_off), size(m_diag), -1, &
        addr_(a_diag), addr_(a_off), addr_(m_diag), c_null_ptr)
    end if
  end function pencil_c64

  function pencil_r32(pencil, a_diag, a_off, m_diag, m_off) result(st)
    type(pscr_pencil), intent(out) :: pencil
    real(c_float), intent(in), target, contiguous :: a_diag(:), a_off(:), m_diag(:)
    real(c_float), intent(in), target, contiguous, optional :: m_off(:)
    integer(c_int) :: st
    if (present(m_off)) then
      st = pencil_(pencil, size(a_diag), size(a_off), size(m_diag), size(m_off), &
        addr_(a_diag), addr_(a_off), addr_(m_diag), addr_(m_off))
    else
      st = pencil_(pencil, size(a_diag), size(a_off), size(m_diag), -1, &
        addr_(a_diag), addr_(a_off), addr_(m_diag), c_null_ptr)
    end if
  end function pencil_r32

  function pencil_c32(pencil, a_diag, a_off, m_diag, m_off) result(st)
    type(pscr_pencil), intent(out) :: pencil
    complex(c_float_complex), intent(in), target, contiguous :: a_diag(:), a_off(:), m_diag(:)
    complex(c_float_complex), intent(in), target, contiguous, optional :: m_off(:)
    integer(c_int) :: st
    if (present(m_off)) then
      st = pencil_(pencil, size(a_diag), size(a_off), size(m_diag), size(m_off), &
        addr_(a_diag), addr_(a_off), addr_(m_diag), addr_(m_off))
    else
      st = pencil_(pencil, size(a_diag), size(a_off), size(m_diag), -1, &
        addr_(a_diag), addr_(a_off), addr_(m_diag), c_null_ptr)
    end if
  end function pencil_c32

  ! ---------------------------------------------------- problem builders

  !> Poisson factors of one dimension (pscr_poisson_factors, eq. 31):
  !! h(n+1) mesh steps in; a_diag(n), a_off(n-1), m_diag(n) out, and
  !! m_off(n-1) (zeros) when present.
  function pscr_poisson_factors(n, h, a_diag, a_off, m_diag, m_off) result(st)
    integer(c_int), intent(in) :: n
    real(c_double), intent(in), target, contiguous :: h(:)
    real(c_double), intent(inout), target, contiguous :: a_diag(:), a_off(:), m_diag(:)
    real(c_double), intent(inout), target, contiguous, optional :: m_off(:)
    integer(c_int) :: st
    type(c_ptr) :: pm_off
    call c_error_clear()
    st = PSCR_ERROR_INVALID_VALUE
    pm_off = c_null_ptr
    if (n >= 1) then
      if (short_('h', size(h), n + 1, 'n+1')) return
      if (short_('a_diag', size(a_diag), n, 'n')) return
      if (short_('a_off', size(a_off), n - 1, 'n-1')) return
      if (short_('m_diag', size(m_diag), n, 'n')) return
      if (present(m_off)) then
        if (short_('m_off', size(m_off), n - 1, 'n-1')) return
        pm_off = addr_(m_off)
      end if
    end if
    st = c_poisson_factors(n, addr_(h), addr_(a_diag), addr_(a_off), addr_(m_diag), pm_off)
  end function pscr_poisson_factors

  !> Helmholtz factors of one dimension with the second-order absorbing
  !! boundary condition (pscr_helmholtz_factors, eqs. 33-35): n >= 2 nodes,
  !! h(n-1) mesh steps, omega > 0; complex a_diag(n), a_off(n-1), m_diag(n),
  !! m_off(n-1) out (C's interleaved doubles).
  function pscr_helmholtz_factors(n, h, omega, a_diag, a_off, m_diag, m_off) result(st)
    integer(c_int), intent(in) :: n
    real(c_double), intent(in), target, contiguous :: h(:)
    real(c_double), intent(in) :: omega
    complex(c_double_complex), intent(inout), target, contiguous :: a_diag(:), a_off(:), &
      m_diag(:), m_off(:)
    integer(c_int) :: st
    call c_error_clear()
    st = PSCR_ERROR_INVALID_VALUE
    if (n >= 2) then
      if (short_('h', size(h), n - 1, 'n-1')) return
      if (short_('a_diag', size(a_diag), n, 'n')) return
      if (short_('a_off', size(a_off), n - 1, 'n-1')) return
      if (short_('m_diag', size(m_diag), n, 'n')) return
      if (short_('m_off', size(m_off), n - 1, 'n-1')) return
    end if
    st = c_helmholtz_factors(n, addr_(h), omega, addr_(a_diag), addr_(a_off), addr_(m_diag), &
      addr_(m_off))
  end function pscr_helmholtz_factors

  !> Steps of a uniform mesh: h(1:nsteps) = length / nsteps.
  function pscr_mesh_uniform(nsteps, length, h) result(st)
    integer(c_int), intent(in) :: nsteps
    real(c_double), intent(in) :: length
    real(c_double), intent(inout), target, contiguous :: h(:)
    integer(c_int) :: st
    call c_error_clear()
    st = PSCR_ERROR_INVALID_VALUE
    if (nsteps >= 1) then
      if (short_('h', size(h), nsteps, 'nsteps')) return
    end if
    st = c_mesh_uniform(nsteps, length, addr_(h))
  end function pscr_mesh_uniform

  !> Steps of pscr_mesh_graded's smoothly graded mesh on [0, length],
  !! finer near both ends for 0 < grading < 1.
  function pscr_mesh_graded(nsteps, length, grading, h) result(st)
    integer(c_int), intent(in) :: nsteps
    real(c_double), intent(in) :: length, grading
    real(c_double), intent(inout), target, contiguous :: h(:)
    integer(c_int) :: st
    call c_error_clear()
    st = PSCR_ERROR_INVALID_VALUE
    if (nsteps >= 1) then
      if (short_('h', size(h), nsteps, 'nsteps')) return
    end if
    st = c_mesh_graded(nsteps, length, grading, addr_(h))
  end function pscr_mesh_graded

end module pscr
