import type { components } from '../api/schema';

type MachineReason = NonNullable<components['schemas']['TrackedLink']['clicks'][number]['machineReason']>;

/** What each machine reason means, in a reader's words (docs/email.md, "Machine opens and clicks"). */
const REASONS: Record<MachineReason, string> = {
  head_request: 'link check (HEAD request)',
  scanner_user_agent: 'link scanner or crawler',
  apple_mpp: 'Apple Mail Privacy Protection',
  too_fast: 'clicked with the other links on arrival',
  honeypot: 'followed the invisible link',
};

/** The reader's words for a reason; takes an event property as stored, so anything unknown is just "machine". */
export function machineReasonLabel(reason: unknown): string {
  return typeof reason === 'string' && reason in REASONS ? REASONS[reason as MachineReason] : 'machine';
}

/** Who made an open or a click: a person, or a machine (greyed, with its reason). */
export function HitBy({ machine, machineReason }: { machine: boolean; machineReason: MachineReason | null }) {
  if (!machine) return <>Person</>;
  return <span className="muted">Machine: {machineReasonLabel(machineReason)}</span>;
}
