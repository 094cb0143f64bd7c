// The F distribution's upper tail, for the forward selection's test of a
// pick (joint_share.h): the chance that a grouping of pure noise explains
// at least what it did.
#pragma once

namespace fastslow {

// P(F >= f) for F with (d1, d2) degrees of freedom, d1, d2 > 0: 1 for
// f <= 0, 0 for f = infinity. Through the regularized incomplete beta
// function, I_x(d2/2, d1/2) at x = d2 / (d2 + d1 f).
double f_survival(double f, double d1, double d2);

// The regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1]
// (a continued fraction, evaluated where it converges fast).
double incomplete_beta(double a, double b, double x);

}  // namespace fastslow
