import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { errorMessage } from '../api/client';
import { AuthFrame, safeNext } from '../components/auth-frame';
import { ErrorPanel, Skeleton } from '../components/feedback';
import { usePasswordResetRequestMutation } from '../data/auth/password-reset-request-mutation';
import { useSignInMutation } from '../data/auth/sign-in-mutation';
import { useStudioStatusQuery } from '../data/studio/studio-status-query';

/** /studio/sign-in: email + password; with no users yet, how to create the first admin instead. */
export default function SignIn() {
  const status = useStudioStatusQuery();
  if (status.isPending)
    return (
      <AuthFrame title="Sign in">
        <Skeleton rows={3} />
      </AuthFrame>
    );
  if (status.isError)
    return (
      <AuthFrame title="Sign in">
        <ErrorPanel error={status.error} />
      </AuthFrame>
    );
  if (!status.data.hasUsers) return <FirstAdminInfo />;
  return <SignInForm />;
}

function FirstAdminInfo() {
  return (
    <AuthFrame title="Create the first admin" description="Nobody can sign in yet. There is no sign-up: the first admin is created on the server.">
      <p>On the machine that runs Waymark, with the same DATABASE_URL and AUTH_SECRET as the API:</p>
      <pre>npm run waymark -- admin create --email you@example.com</pre>
      <p className="muted">
        It prints a generated password once. Or set <code>STUDIO_ADMIN_EMAIL</code> (and optionally <code>STUDIO_ADMIN_PASSWORD</code>) and restart the API.
        Then reload this page. Everyone else joins by invitation from Settings → Members.
      </p>
    </AuthFrame>
  );
}

function SignInForm() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [resetSent, setResetSent] = useState(false);
  const mutation = useSignInMutation({ onSuccess: () => navigate(safeNext(params.get('next')), { replace: true }) });
  const reset = usePasswordResetRequestMutation({ onSuccess: () => setResetSent(true) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    mutation.mutate({ email, password });
  };
  return (
    <AuthFrame title="Sign in">
      <form className="stack" onSubmit={submit}>
        <label className="field">
          Email
          <input type="email" autoComplete="username" required value={email} onChange={(event) => setEmail(event.target.value)} />
        </label>
        <label className="field">
          Password
          <input type="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(event.target.value)} />
        </label>
        {mutation.isError ? (
          <div className="error-panel" role="alert">
            {errorMessage(mutation.error)}
          </div>
        ) : null}
        <button type="submit" className="primary" disabled={mutation.isPending}>
          {mutation.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        <button type="button" disabled={email === '' || reset.isPending} onClick={() => reset.mutate(email)}>
          Email me a reset link
        </button>
        {resetSent ? <p role="status">If an account exists for {email}, a reset link is on its way (valid 15 minutes).</p> : null}
        {reset.isError ? <ErrorPanel error={reset.error} /> : null}
      </form>
    </AuthFrame>
  );
}
