// The pages anyone may open, signed in or not (the app shell shows them before it asks for a
// session): sign-up, the forgotten password, and the two pages email links open. The login
// page itself is the shell's own (it redeems a login link before any session exists).
import { ForgotPasswordPage, ResetPasswordPage } from './password-reset.js';
import type { PageDefinition } from './registry.js';
import { SignupPage } from './signup.js';
import { VerifyEmailPage } from './verify-email.js';

export const publicPages: readonly PageDefinition[] = [
  { path: '/signup', title: 'password.signup.title', nav: false, component: SignupPage },
  { path: '/forgot', title: 'password.forgot.title', nav: false, component: ForgotPasswordPage },
  { path: '/reset', title: 'password.reset.title', nav: false, component: ResetPasswordPage },
  { path: '/verify', title: 'password.verify.title', nav: false, component: VerifyEmailPage },
];
