import type { Properties, PropertyCondition } from './conditions';
import type { Duration } from './duration';
import type { LocalTime, Weekday } from './local-time';

/** What a journey's `run` receives. Every step moves `currentNodeId` and writes a journey log. */
export interface JourneyContext {
  journey: { id: string; name: string };
  /** the journey state (enrollment) id in Postgres */
  stateId: string;
  user: { id: string; email: string };
  /** the event that started this run (properties are JSON primitives only) */
  trigger: { event: string; eventId: string; occurredAt: string; properties: Properties };
  /** Sends one email through the send pipeline (preferences, suppression, tracking). Node id defaults to the template key. */
  sendEmail(templateKey: string, options?: SendEmailOptions): Promise<SendEmailOutcome>;
  /** Durable timer; the state is `waiting` while asleep. */
  sleep(duration: Duration, options?: { node?: string }): Promise<void>;
  /**
   * Durable timer to the next time the recipient's clock shows `time` (their contact's `timezone`,
   * else DEFAULT_TIMEZONE), on one of `weekdays` when given; at 09:00 sharp, the next 09:00 is tomorrow's.
   */
  sleepUntilLocal(time: LocalTime, options?: SleepUntilLocalOptions): Promise<void>;
  /** Waits for the user's next event with this name (and `where`); undefined on timeout. */
  waitForEvent(name: string, options: WaitForEventOptions): Promise<ReceivedEvent | undefined>;
  history: {
    /** Whether the user has an event with this name (since a point in time, matching `where`). */
    hasEvent(name: string, options?: HasEventOptions): Promise<boolean>;
  };
  /** Names the current node (shown as `currentNodeId` and in the journey log). */
  node(id: string): Promise<void>;
}

export interface SendEmailOptions {
  /** node id for this step; defaults to the template key */
  node?: string;
  /** template props */
  data?: Record<string, unknown>;
  /** preference category; defaults to 'journey' */
  category?: string;
}

export interface SendEmailOutcome {
  status: 'sent' | 'skipped' | 'failed';
  emailSendId?: string;
  reason?: string;
}

export interface SleepUntilLocalOptions {
  /** only on these days of the recipient's week */
  weekdays?: Weekday[];
  node?: string;
}

export interface WaitForEventOptions {
  timeout: Duration;
  where?: PropertyCondition[];
  node?: string;
}

export interface HasEventOptions {
  /** 'entry' = since this run started; a Date; or omitted for all time */
  since?: 'entry' | Date;
  /** only events within this long before now, e.g. '7 days' */
  within?: Duration;
  where?: PropertyCondition[];
}

export interface ReceivedEvent {
  eventId: string;
  name: string;
  occurredAt: string;
  properties: Properties;
}
