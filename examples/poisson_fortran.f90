! pscr-poisson-fortran: the Fortran module (docs/fortran.md) on a model
! problem. -lap u = f on the unit square, u = 0 on the boundary, with the
! known solution u = sin(pi x) sin(pi y) (so f = 2 pi^2 u): the paper's
! piecewise-linear FE with lumped mass (pscr_poisson_factors) on n x n
! interior nodes, load b = (M1 (x) M2) f(nodes). Solves n = 31, 63, 127
! and prints the max-norm error against the exact solution, which falls as
! h^2. Exits non-zero when a call fails or the error does not fall so.
!
! SPDX-License-Identifier: BSD-3-Clause
program poisson_fortran
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  use pscr
  implicit none

  integer(c_int), parameter :: sizes(3) = [31_c_int, 63_c_int, 127_c_int]
  real(c_double), parameter :: pi = 3.14159265358979323846_c_double
  real(c_double) :: err(3)
  character(len=64) :: arg
  integer :: k

  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    if (arg == '--help' .or. arg == '-h') then
      print '(a)', 'usage: pscr-poisson-fortran'
      print '(a)', 'Solves -lap u = 2 pi^2 sin(pi x) sin(pi y) on the unit square (FE, n x n'
      print '(a)', 'interior nodes, n = 31, 63, 127) with the pscr Fortran module and prints'
      print '(a)', 'the max-norm error against u = sin(pi x) sin(pi y). No options.'
      stop
    end if
    if (arg(1:1) == '-') then
      write (error_unit, '(a)') "pscr-poisson-fortran: unknown option '"//trim(arg)//"'"
    else
      write (error_unit, '(a)') "pscr-poisson-fortran: unexpected argument '"//trim(arg)//"'"
    end if
    write (error_unit, '(a)') 'pscr-poisson-fortran: see pscr-poisson-fortran --help'
    stop 2, quiet=.true. ! a usage error: status 2, no backtrace
  end if

  print '(a,a)', 'pscr ', pscr_version()
  do k = 1, size(sizes)
    err(k) = solve(sizes(k))
    print '(a,i4,a,i4,a,es10.3)', 'n = ', sizes(k), ' x ', sizes(k), '   max error ', err(k)
  end do
  print '(a,2f6.2)', 'error ratios (4 for second order):', err(1:2)/err(2:3)
  ! Second order: halving h divides the error by about 4.
  if (any(err(1:2)/err(2:3) < 3.5_c_double) .or. err(3) > 1e-4_c_double) then
    write (error_unit, '(a)') 'pscr-poisson-fortran: the error does not fall as h^2'
    stop 1, quiet=.true.
  end if

contains

  !> Solve on n x n interior nodes; the max-norm error.
  function solve(n) result(err)
    integer(c_int), intent(in) :: n
    real(c_double) :: err
    real(c_double), allocatable, target :: h(:), a_diag(:), a_off(:), m_diag(:)
    real(c_double), allocatable :: x(:), u_exact(:, :), b(:, :), u(:, :)
    type(pscr_pencil) :: pencils(2)
    type(pscr_options) :: opts
    type(c_ptr) :: plan
    integer :: i1, i2

    ! One dimension: n+1 steps of a uniform mesh on [0, 1], the FE factors.
    allocate (h(n + 1), a_diag(n), a_off(n - 1), m_diag(n), x(n))
    call ok(pscr_mesh_uniform(n + 1, 1.0_c_double, h))
    call ok(pscr_poisson_factors(n, h, a_diag, a_off, m_diag))
    x = [(sum(h(1:i1)), i1 = 1, n)] ! node coordinates
    ! Both dimensions have the same pencil (M diagonal: m_off NULL).
    pencils = pscr_pencil(n, c_loc(a_diag), c_loc(a_off), c_loc(m_diag), c_null_ptr)

    ! Vectors as u(n2, n1): the first Fortran index is pscr's last dimension.
    allocate (u_exact(n, n), b(n, n), u(n, n))
    do i1 = 1, n
      do i2 = 1, n
        u_exact(i2, i1) = sin(pi*x(i1))*sin(pi*x(i2))
        b(i2, i1) = m_diag(i1)*m_diag(i2)*2*pi**2*u_exact(i2, i1)
      end do
    end do

    call pscr_options_init(opts) ! the defaults: CUDA if built and present, else CPU
    call ok(pscr_plan_create(plan, PSCR_R64, 2, pencils, 0.0_c_double, opts))
    call ok(pscr_solve(plan, b, u))
    call pscr_plan_destroy(plan)
    err = maxval(abs(u - u_exact))
  end function solve

  !> Stop with the library's message unless st is PSCR_SUCCESS.
  subroutine ok(st)
    integer(c_int), intent(in) :: st
    if (st == PSCR_SUCCESS) return
    write (error_unit, '(a)') 'pscr-poisson-fortran: '//pscr_status_string(st)
    write (error_unit, '(a)') 'pscr-poisson-fortran: '//pscr_last_error()
    stop 1, quiet=.true.
  end subroutine ok

end program poisson_fortran
