// A password-reset link (/#/reset-password?token=…): a new password (POST
// /v1/auth/password-reset/confirm), which ends every session of the person; then sign in with it.
import { useMutation } from '@tanstack/react-query';
import { confirmPasswordReset } from '../../api/person-session.js';
import { NewPasswordForm } from './NewPasswordForm.js';

export function ResetPasswordPage({ token, onDone }: { token: string; onDone: () => void }) {
  const reset = useMutation({
    mutationFn: (password: string) => confirmPasswordReset(token, password),
    // Used up: the token leaves the address bar.
    onSuccess: () => window.history.replaceState(null, '', '/'),
  });
  if (reset.isSuccess) {
    return (
      <div className="signin">
        <div className="signin-card" data-form="password-set">
          <h1>Password set</h1>
          <p>Your new password is in place, and every session you had has ended. Sign in with the new password.</p>
          <button type="button" onClick={onDone}>
            Go to sign-in
          </button>
        </div>
      </div>
    );
  }
  return (
    <NewPasswordForm
      name="reset-password"
      title="Choose a new password"
      intro="12 to 256 characters. The link works once, for 30 minutes."
      submitLabel="Set the password"
      save={reset}
    />
  );
}
