import type { Reporter, TestModule } from 'vitest/node';

interface ProjectTally {
  files: number;
  passed: number;
  failed: number;
  skipped: number;
  firstStart: number;
  lastEnd: number;
}

/**
 * The last lines of a test run: per project (unit, workflow, integration), how many files and
 * tests ran, how they ended, and the wall-clock time from its first file's start to its last
 * file's end (projects overlap, so the times do not add up to the run's duration).
 */
export default class RunSummaryReporter implements Reporter {
  private readonly starts = new Map<string, number>();
  private readonly tallies = new Map<string, ProjectTally>();

  onTestModuleStart(module: TestModule): void {
    this.starts.set(module.moduleId, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const end = Date.now();
    const start = this.starts.get(module.moduleId) ?? end;
    const name = module.project.name || 'default';
    const tally = this.tallies.get(name) ?? { files: 0, passed: 0, failed: 0, skipped: 0, firstStart: start, lastEnd: end };
    tally.files += 1;
    tally.firstStart = Math.min(tally.firstStart, start);
    tally.lastEnd = Math.max(tally.lastEnd, end);
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') tally.passed += 1;
      else if (state === 'failed') tally.failed += 1;
      else tally.skipped += 1;
    }
    this.tallies.set(name, tally);
  }

  onTestRunEnd(): void {
    if (this.tallies.size === 0) return;
    const lines = [...this.tallies.entries()].map(([name, tally]) => {
      const tests = tally.passed + tally.failed + tally.skipped;
      const outcome = [`${tally.passed} passed`, tally.failed > 0 ? `${tally.failed} failed` : '', tally.skipped > 0 ? `${tally.skipped} skipped` : '']
        .filter(Boolean)
        .join(', ');
      const seconds = ((tally.lastEnd - tally.firstStart) / 1000).toFixed(1);
      return `  ${name.padEnd(12)} ${String(tally.files).padStart(4)} files  ${String(tests).padStart(5)} tests (${outcome})  ${seconds.padStart(7)} s`;
    });
    process.stdout.write(`\n Per project:\n${lines.join('\n')}\n`);
  }
}
