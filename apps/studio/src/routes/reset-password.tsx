import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { AuthFrame } from '../components/auth-frame';
import { ErrorPanel } from '../components/feedback';
import { NewPasswordField } from '../components/new-password-field';
import { usePasswordResetMutation } from '../data/auth/password-reset-mutation';

/** /studio/reset-password?token=…: the link of the reset email (single use, 15 minutes). */
export default function ResetPassword() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const mutation = usePasswordResetMutation();
  const mismatch = confirm !== '' && confirm !== password;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!mismatch) mutation.mutate({ token, newPassword: password });
  };
  if (token === '')
    return (
      <AuthFrame title="Reset password">
        <ErrorPanel error={new Error('This link has no reset token. Ask for a new link from the sign-in page.')} />
        <Link to="/studio/sign-in">Back to sign-in</Link>
      </AuthFrame>
    );
  if (mutation.isSuccess)
    return (
      <AuthFrame title="Reset password">
        <p role="status">Your password is changed and every other session is signed out.</p>
        <Link to="/studio/sign-in">Sign in</Link>
      </AuthFrame>
    );
  return (
    <AuthFrame title="Reset password" description="Choose a new password (8 to 128 characters).">
      <form className="stack" onSubmit={submit}>
        <NewPasswordField label="New password" value={password} onChange={setPassword} />
        <label className="field">
          Repeat it
          <input type="password" autoComplete="new-password" required value={confirm} onChange={(e) => setConfirm(e.target.value)} aria-invalid={mismatch} />
        </label>
        {mismatch ? <p className="muted">The two passwords differ.</p> : null}
        {mutation.isError ? <ErrorPanel error={mutation.error} /> : null}
        <button type="submit" className="primary" disabled={mutation.isPending || mismatch}>
          Set password
        </button>
      </form>
    </AuthFrame>
  );
}
