/** The account password rule (docs/auth.md); the server checks it too, this only helps the browser say so first. */
const PASSWORD_MIN = 8;
const PASSWORD_MAX = 128;

/** A labelled new-password input with the account password bounds, for every form that sets one. */
export function NewPasswordField({ label, value, onChange }: { label: string; value: string; onChange: (value: string) => void }) {
  return (
    <label className="field">
      {label}
      <input
        type="password"
        autoComplete="new-password"
        minLength={PASSWORD_MIN}
        maxLength={PASSWORD_MAX}
        required
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </label>
  );
}
