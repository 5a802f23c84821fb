/**
 * One arm on one UTC day: a journey's people who entered that day and, of them, those who
 * converted (whenever they did); a broadcast's recipients exposed that day and the recipients who
 * converted that day (docs/journeys.md, "Goals, holdouts and lift"; docs/broadcasts.md, "Goals and
 * holdouts"). Either way the running sums give each arm's conversion rate so far.
 */
export interface DailyArm {
  enrolled: number;
  converted: number;
}

export interface DailyOutcome {
  /** the UTC day, YYYY-MM-DD */
  day: string;
  treatment: DailyArm;
  /** null when nobody is held out (as `arms.holdout`) */
  holdout: DailyArm | null;
}

/** A counters row as read: one arm on one day (several rows of one day and arm add up). */
export interface DailyRow extends DailyArm {
  day: string;
  holdout: boolean;
}

/**
 * The rows of (day, arm), in day order, as one entry per day (the studio's chart series), an arm
 * with no row that day counting zero.
 */
export function dailySeries(rows: readonly DailyRow[], hasHoldout: boolean): DailyOutcome[] {
  const byDay = new Map<string, DailyOutcome>();
  for (const row of rows) {
    const entry = byDay.get(row.day) ?? {
      day: row.day,
      treatment: { enrolled: 0, converted: 0 },
      holdout: hasHoldout ? { enrolled: 0, converted: 0 } : null,
    };
    const arm = row.holdout ? entry.holdout : entry.treatment;
    if (arm !== null) {
      arm.enrolled += row.enrolled;
      arm.converted += row.converted;
    }
    byDay.set(row.day, entry);
  }
  return [...byDay.values()];
}
