import type { Explanation } from '@waymark/core/journeys/explain';

/** Times as the reader's clock shows them: `Mon 23 Nov, 14:05` in the local (or given) zone. */
function formatTime(value: Date | string, timeZone: string | undefined): string {
  return new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', timeZone }).format(
    new Date(value),
  );
}

/** ISO instants inside an outcome phrase ("waiting until 2026-…Z") read in the same zone. */
function localizeInstants(text: string, timeZone: string | undefined): string {
  return text.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, (iso) => formatTime(iso, timeZone));
}

/** The explanation as a short story for a terminal (`npm run waymark -- explain`). */
export function formatExplanation(explanation: Explanation, options: { timeZone?: string } = {}): string {
  const { timeZone } = options;
  const who = explanation.contact.externalId ?? explanation.contact.email ?? explanation.contact.id;
  const lines = [`${who} in ${explanation.journey.name} (${explanation.journey.id}, starts on ${explanation.journey.triggerEvent})`];
  if (explanation.unavailable !== undefined) lines.push(`  ! ${explanation.unavailable}: the journey starts nothing right now`);
  for (const trigger of explanation.triggers)
    lines.push(`  ${formatTime(trigger.at, timeZone)}  ${explanation.journey.triggerEvent} → ${localizeInstants(trigger.outcome, timeZone)}`);
  for (const [index, enrollment] of explanation.enrollments.entries()) {
    lines.push(`  Enrollment ${index + 1} (${enrollment.status}), entered ${formatTime(enrollment.enteredAt, timeZone)}:`);
    for (const step of enrollment.steps) {
      const what = step.templateKey === undefined ? step.node : `${step.templateKey} @ ${step.node}`;
      lines.push(`    ${formatTime(step.at, timeZone)}  ${what}: ${localizeInstants(step.outcome, timeZone)}`);
    }
    if (enrollment.now !== undefined) lines.push(`    now: ${localizeInstants(enrollment.now, timeZone)}`);
  }
  if (explanation.notEnrolled !== undefined) lines.push(`  Not enrolled: ${localizeInstants(explanation.notEnrolled, timeZone)}`);
  if (explanation.template !== undefined) lines.push(`  Template ${explanation.template.key}: ${localizeInstants(explanation.template.outcome, timeZone)}`);
  return lines.join('\n');
}
