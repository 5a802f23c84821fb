import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { AuthFrame } from '../components/auth-frame';
import { ErrorPanel } from '../components/feedback';
import { NewPasswordField } from '../components/new-password-field';
import { useInvitationAcceptMutation } from '../data/auth/invitation-accept-mutation';

/** /studio/accept-invite?token=…: the invitation email's link; creates the account (or joins) and signs in. */
export default function AcceptInvite() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const mutation = useInvitationAcceptMutation({ onSuccess: () => navigate('/studio', { replace: true }) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    mutation.mutate({ token, password, ...(name === '' ? {} : { name }) });
  };
  return (
    <AuthFrame title="Accept invitation" description="Set up your account to join your team on Waymark.">
      {token === '' ? <ErrorPanel error={new Error('This link has no invitation token. Ask your admin for a new invitation.')} /> : null}
      <form className="stack" onSubmit={submit}>
        <label className="field">
          Your name (optional)
          <input autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <NewPasswordField label="Password" value={password} onChange={setPassword} />
        {mutation.isError ? <ErrorPanel error={mutation.error} /> : null}
        <button type="submit" className="primary" disabled={mutation.isPending || token === ''}>
          Join
        </button>
      </form>
    </AuthFrame>
  );
}
