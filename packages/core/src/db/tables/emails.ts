/** Kysely table types: sends, their provider notifications, cap claims, the reputation breaker, opens and clicks (db/schema.ts gathers them into Database). */
import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, JsonObject, NullableTimestamp, Timestamp } from './columns';

export type EmailStatus =
  'queued' | 'rendered' | 'sent' | 'delivered' | 'opened' | 'clicked' | 'bounced' | 'complained' | 'failed' | 'cancelled' | 'unknown_dropped';

/** Why an open or a click was made by a machine, not a person (docs/email.md, "Machine opens and clicks"; migration 0075). */
export const machineReasons = ['head_request', 'scanner_user_agent', 'apple_mpp', 'too_fast', 'honeypot'] as const;
export type MachineReason = (typeof machineReasons)[number];

export interface EmailSendsTable {
  id: Generated<string>;
  journeyStateId: string | null;
  userId: string | null;
  templateKey: string;
  providerMessageId: string | null;
  fromEmail: string;
  toEmail: string;
  subject: Generated<string>;
  category: Generated<string>;
  status: ColumnType<EmailStatus, EmailStatus | undefined, EmailStatus>;
  idempotencyKey: string | null;
  data: Json<JsonObject>;
  errorMessage: string | null;
  sentAt: NullableTimestamp;
  deliveredAt: NullableTimestamp;
  /** first open / click of any kind */
  openedAt: NullableTimestamp;
  clickedAt: NullableTimestamp;
  /** first open / click by a person (0075) */
  humanOpenedAt: NullableTimestamp;
  humanClickedAt: NullableTimestamp;
  bouncedAt: NullableTimestamp;
  complainedAt: NullableTimestamp;
  /** 0003: set when a provider call begins; see migrations/0003_email_delivery.ts */
  sendStartedAt: NullableTimestamp;
  sendAttempts: Generated<number>;
  /** 0110: the broadcast this email belongs to (docs/broadcasts.md) */
  broadcastId: ColumnType<string | null, string | null | undefined, string | null>;
  /** 0215: the template catalog's locale it was rendered in (docs/email.md, "Languages"); null before 0215 */
  locale: ColumnType<string | null, string | null | undefined, string | null>;
  /** 0298: when an erasure emptied its template data and subject (docs/operations.md, "Contacts"); null otherwise */
  erasedAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

/** An admitted send in flight, counted by the frequency caps until its email_sends row exists (0115). */
export interface DeliveryCapClaimsTable {
  idempotencyKey: string;
  /** lower-cased address */
  email: string;
  category: string;
  createdAt: Date;
}

export interface EmailProviderNotificationsTable {
  messageId: string;
  notificationType: string;
  receivedAt: Timestamp;
  /** 0156: the send it was about, when known (by provider message id or the send id tag) */
  emailSendId: ColumnType<string | null, string | null | undefined, string | null>;
  /** 0156: SES's own event or notification type (`Send`, `Bounce`, …) */
  eventType: ColumnType<string | null, string | null | undefined, string | null>;
  /** 0296: when SES accepted the message of an event carrying the send id tag (its mail.timestamp): how far the event stream has come */
  acceptedAt: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** 0205: the reputation breaker's groups (docs/email.md, "Reputation breaker") */
export type SendGroup = 'marketing' | 'transactional';
export type BreakerState = 'ok' | 'slowed' | 'paused';

/** 0205: per hour, group and mailbox provider, what SES's events counted */
export interface ReputationCountsTable {
  sendGroup: SendGroup;
  provider: string;
  hour: Timestamp;
  sends: Generated<number>;
  bounces: Generated<number>;
  complaints: Generated<number>;
}

export interface BreakerBaseline {
  at: string;
  sends: number;
  bounces: number;
  complaints: number;
}

/** 0205: the breaker's state per group and provider (no row: ok) */
export interface ReputationBreakersTable {
  sendGroup: SendGroup;
  provider: string;
  state: BreakerState;
  since: Timestamp;
  clearSince: NullableTimestamp;
  /** the window's counts at a manual resume, with its time: set aside for one window */
  baseline: ColumnType<BreakerBaseline | null, string | null | undefined, string | null>;
  updatedAt: Generated<Date>;
}
export type ReputationBreakerRow = Selectable<ReputationBreakersTable>;

/** 0260: per UTC day of the warm-up ramp, the marketing sends it let through */
export interface WarmupDaysTable {
  day: ColumnType<Date, string, string>;
  used: Generated<number>;
  updatedAt: Generated<Date>;
}

export interface TrackedLinksTable {
  id: Generated<string>;
  emailSendId: string;
  originalUrl: string;
  clickCount: Generated<number>;
  /** the invisible link of every tracked email (0075): its id is the send's id */
  honeypot: Generated<boolean>;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface LinkClicksTable {
  id: Generated<string>;
  trackedLinkId: string;
  ipAddress: string | null;
  userAgent: string | null;
  machine: Generated<boolean>;
  machineReason: MachineReason | null;
  clickedAt: Timestamp;
  /** 0162: inside the machine-click window, its verdict not settled yet */
  pending: Generated<boolean>;
}

/** How far the apis have checked that every open and click has its event (0297); one row. */
export interface TrackingEventSweepsTable {
  id: Generated<number>;
  sweptUntil: Timestamp;
}

/** Every fetch of a send's open pixel (0075). */
export interface EmailOpensTable {
  id: Generated<string>;
  emailSendId: string;
  ipAddress: string | null;
  userAgent: string | null;
  machine: Generated<boolean>;
  machineReason: MachineReason | null;
  openedAt: Timestamp;
}
