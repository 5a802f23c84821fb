import type { Journey } from '@waymark/journey';
import { vi } from 'vitest';
import type { TestApi } from './test-api';

/**
 * Adds journeys to a running api's registry for one test (the api side only: the list, triggers,
 * exit rules, overrides; the worker keeps its own). Restore with `vi.restoreAllMocks()` afterEach.
 */
export function registerTestJourneys(api: TestApi, extra: Journey[]): void {
  const registry = api.deps.journeys;
  const all = registry.all.bind(registry);
  const find = registry.find.bind(registry);
  const get = registry.get.bind(registry);
  const triggeredBy = registry.triggeredBy.bind(registry);
  const exitedBy = registry.exitedBy.bind(registry);
  const codeEnabled = registry.codeEnabled.bind(registry);
  vi.spyOn(registry, 'all').mockImplementation(() => [...all(), ...extra]);
  vi.spyOn(registry, 'find').mockImplementation((id) => extra.find((journey) => journey.id === id) ?? find(id));
  vi.spyOn(registry, 'get').mockImplementation((id) => extra.find((journey) => journey.id === id) ?? get(id));
  vi.spyOn(registry, 'triggeredBy').mockImplementation((name) => [...triggeredBy(name), ...extra.filter((journey) => journey.trigger.event === name)]);
  vi.spyOn(registry, 'exitedBy').mockImplementation((name) => [
    ...exitedBy(name),
    ...extra.filter((journey) => (journey.exitOn ?? []).some((rule) => rule.event === name)),
  ]);
  vi.spyOn(registry, 'codeEnabled').mockImplementation((id) => extra.some((journey) => journey.id === id) || codeEnabled(id));
}
