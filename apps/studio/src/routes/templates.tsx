import { Monitor, Smartphone } from 'lucide-react';
import { useEffect, useState, type FormEvent } from 'react';
import type { components } from '../api/schema';
import { useSession } from '../api/session';
import { Empty, ErrorPanel, Skeleton } from '../components/feedback';
import { PageHeader } from '../components/page';
import { useUrlState } from '../components/url-state';
import { useTemplateRenderQuery } from '../data/templates/template-render-query';
import { useTemplateSendTestMutation } from '../data/templates/template-send-test-mutation';
import { useTemplatesQuery } from '../data/templates/templates-query';

type Template = components['schemas']['EmailTemplate'];

function parseObject(text: string): { data?: Record<string, unknown>; problem?: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { data: value as Record<string, unknown> };
    return { problem: 'Sample data must be a JSON object.' };
  } catch (error) {
    return { problem: `Not valid JSON: ${(error as Error).message}` };
  }
}

function SendTest({ templateKey, data, locale }: { templateKey: string; data: Record<string, unknown> | undefined; locale: string | undefined }) {
  const [to, setTo] = useState('');
  const send = useTemplateSendTestMutation(templateKey);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate({ to, data: data ?? {}, locale });
  };
  return (
    <form className="filters" onSubmit={submit}>
      <label className="field">
        Send test to
        <input type="email" required value={to} onChange={(e) => setTo(e.target.value)} />
      </label>
      <button type="submit" disabled={send.isPending || data === undefined}>
        Send test
      </button>
      {send.isSuccess ? (
        <span role="status">
          {send.data.status}
          {send.data.reason === undefined ? '' : `: ${send.data.reason}`}
        </span>
      ) : null}
      {send.isError ? <ErrorPanel error={send.error} /> : null}
    </form>
  );
}

/** `fr` → "French (fr)": the tag in the studio's language, with the tag itself. */
function languageName(tag: string): string {
  const name = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' }).of(tag);
  return name === undefined ? tag : `${name} (${tag})`;
}

function Preview({ template }: { template: Template }) {
  const { can } = useSession();
  const url = useUrlState();
  const mobile = url.get('width') === 'mobile';
  // each language of the template's catalog (docs/email.md, "Languages"), its default first
  const locale = template.locales.find((tag) => tag === url.get('locale')) ?? template.locales[0];
  const [text, setText] = useState(() => JSON.stringify(template.sampleData, null, 2));
  const { data, problem } = parseObject(text);
  // re-render 400 ms after the last keystroke, not on every key
  const [debounced, setDebounced] = useState(text);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(text), 400);
    return () => clearTimeout(timer);
  }, [text]);
  const rendered = useTemplateRenderQuery(template.key, parseObject(debounced).data, locale);
  return (
    <div className="grid preview-grid">
      <section className="card stack" aria-labelledby="sample">
        <h2 id="sample">Sample data</h2>
        <textarea aria-labelledby="sample" value={text} onChange={(e) => setText(e.target.value)} spellCheck={false} style={{ minHeight: 240 }} />
        {problem === undefined ? null : <p className="muted">{problem}</p>}
        {rendered.isError ? <ErrorPanel error={rendered.error} /> : null}
        {can.manageJourneys ? <SendTest templateKey={template.key} data={data} locale={locale} /> : null}
      </section>
      <section className="card stack" aria-labelledby="preview">
        <div className="row" style={{ justifyContent: 'space-between' }}>
          <h2 id="preview">Preview</h2>
          <label className="field">
            Language
            <select value={locale} onChange={(e) => url.set({ locale: e.target.value })} disabled={template.locales.length < 2}>
              {template.locales.map((tag) => (
                <option key={tag} value={tag}>
                  {languageName(tag)}
                </option>
              ))}
            </select>
          </label>
          <div className="row" role="group" aria-label="Preview width">
            <button type="button" aria-pressed={!mobile} onClick={() => url.set({ width: '' })}>
              <Monitor size={14} aria-hidden /> Desktop
            </button>
            <button type="button" aria-pressed={mobile} onClick={() => url.set({ width: 'mobile' })}>
              <Smartphone size={14} aria-hidden /> Mobile
            </button>
          </div>
        </div>
        {rendered.data === undefined ? (
          <Skeleton />
        ) : (
          <>
            <div>
              <strong>Subject:</strong> <span lang={rendered.data.locale}>{rendered.data.subject}</span>
            </div>
            <iframe
              title={`Preview of ${template.key} (${languageName(rendered.data.locale)})`}
              className={`email-frame ${mobile ? 'preview-mobile' : ''}`}
              sandbox=""
              srcDoc={rendered.data.html}
            />
          </>
        )}
      </section>
    </div>
  );
}

/** /studio/templates?key=…&width=mobile: every React Email template with a live server-rendered preview. */
export default function Templates() {
  const url = useUrlState();
  const list = useTemplatesQuery();
  const templates = list.data?.templates ?? [];
  const selected = templates.find((template) => template.key === url.get('key')) ?? templates[0];
  return (
    <div className="stack">
      <PageHeader title="Templates" description="React Email templates from journeys/templates; edit the sample data to see the email change." />
      {list.isPending ? (
        <Skeleton />
      ) : list.isError ? (
        <ErrorPanel error={list.error} />
      ) : selected === undefined ? (
        <Empty>No templates. Add one in journeys/templates and register it in journeys/templates/registry.ts.</Empty>
      ) : (
        <>
          <label className="field" style={{ maxWidth: 360 }}>
            Template
            <select value={selected.key} onChange={(e) => url.set({ key: e.target.value })}>
              {templates.map((template) => (
                <option key={template.key} value={template.key}>
                  {template.key}
                  {template.description === null ? '' : ` — ${template.description}`}
                </option>
              ))}
            </select>
          </label>
          <Preview key={selected.key} template={selected} />
        </>
      )}
    </div>
  );
}
