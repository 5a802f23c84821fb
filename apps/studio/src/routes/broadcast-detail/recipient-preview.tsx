import { useState } from 'react';
import type { components } from '../../api/schema';
import { useDebouncedValue } from '../../components/debounced';
import { ErrorPanel, Skeleton } from '../../components/feedback';
import { Options } from '../../components/options';
import { useTemplateRenderQuery } from '../../data/templates/template-render-query';
import { recipientData, type ComposerState } from './form-state';

type Contact = components['schemas']['Contact'];
type Template = components['schemas']['EmailTemplate'];

interface PreviewProps {
  state: ComposerState;
  /** the template data typed so far (undefined while it is not valid JSON) */
  data: Record<string, unknown> | undefined;
  templates: Template[];
  /** up to 20 contacts of the audience, most recently seen first */
  sample: Contact[];
}

const nameOf = (contact: Contact) => contact.email ?? contact.externalId ?? contact.id;

/**
 * The email as one real recipient of the audience would get it: the broadcast's data, then the
 * contact's properties for the props the template takes (the send's rule), rendered by the API.
 */
export function RecipientPreview({ state, data, templates, sample }: PreviewProps) {
  const [contactId, setContactId] = useState('');
  const [variantId, setVariantId] = useState('');
  const contact = sample.find((candidate) => candidate.id === contactId) ?? sample[0];
  const variant = state.variants.find((candidate) => candidate.id === variantId) ?? state.variants[0];
  const templateKey = variant?.templateKey || state.templateKey;
  const template = templates.find((candidate) => candidate.key === templateKey);
  // without a recipient yet, the template's sample data stands in for the contact
  const filled =
    data === undefined || template === undefined
      ? undefined
      : recipientData(data, Object.keys(template.sampleData), contact === undefined ? template.sampleData : contact.properties);
  // in the recipient's language, as the broadcast sends it (docs/email.md, "Languages")
  const locale = contact?.properties.locale;
  const rendered = useTemplateRenderQuery(templateKey, useDebouncedValue(filled), typeof locale === 'string' ? locale : undefined);
  const subject = variant?.subject.trim() || state.subject.trim() || rendered.data?.subject;
  return (
    <section className="card stack" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview</h2>
      <div className="row condition-fields">
        {sample.length === 0 ? (
          <p className="muted">With the template's sample data: choose an audience to see the email as one of its contacts gets it.</p>
        ) : (
          <label className="field">
            As received by
            <select value={contact?.id ?? ''} onChange={(event) => setContactId(event.target.value)}>
              <Options items={sample.map((candidate) => [candidate.id, nameOf(candidate)] as const)} />
            </select>
          </label>
        )}
        {state.variants.length === 0 ? null : (
          <label className="field">
            Variant
            <select value={variant?.id ?? ''} onChange={(event) => setVariantId(event.target.value)}>
              <Options items={state.variants.map((candidate) => candidate.id)} />
            </select>
          </label>
        )}
      </div>
      {templateKey === '' ? (
        <p className="muted">Choose a template to see the email.</p>
      ) : rendered.isError ? (
        <>
          <p className="muted">This recipient would be skipped as missing data:</p>
          <ErrorPanel error={rendered.error} />
        </>
      ) : rendered.data === undefined ? (
        <Skeleton />
      ) : (
        <>
          <div>
            <strong>Subject:</strong> <span data-testid="preview-subject">{subject}</span>
          </div>
          <iframe
            title={`Preview for ${contact === undefined ? 'sample data' : nameOf(contact)}`}
            className="email-frame"
            sandbox=""
            srcDoc={rendered.data.html}
          />
        </>
      )}
    </section>
  );
}
