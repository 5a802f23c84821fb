import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { journeyVersions } from './journey-versions';
import { deploymentJourneyVersions } from './runtime';

const journeysDir = fileURLToPath(new URL('../journeys/', import.meta.url));
const copies: string[] = [];

function copyOfJourneys(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'waymark-versions-'));
  copies.push(dir);
  cpSync(journeysDir, dir, { recursive: true });
  return dir;
}

const versionOf = (dir: string) => journeyVersions(['welcome-series', 'trial-conversion'], dir);

afterEach(() => {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('journey versions', () => {
  it('are short hashes of the sources, the same for every copy and line ending', () => {
    const deployed = deploymentJourneyVersions();
    expect(deployed.get('welcome-series')).toMatch(/^[0-9a-f]{6}$/);
    expect(new Set(deployed.values()).size).toBe(deployed.size);
    const dir = copyOfJourneys();
    const file = path.join(dir, 'welcome-series.ts');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
    expect(versionOf(dir).get('welcome-series')).toBe(deployed.get('welcome-series'));
  });

  it('change with the journey module and with a template it names, not with one it does not', () => {
    const before = versionOf(journeysDir);
    const dir = copyOfJourneys();
    writeFileSync(path.join(dir, 'templates', 'welcome-tips.tsx'), `${readFileSync(path.join(dir, 'templates', 'welcome-tips.tsx'), 'utf8')}\n// edited\n`);
    const templateEdited = versionOf(dir);
    expect(templateEdited.get('welcome-series')).not.toBe(before.get('welcome-series'));
    expect(templateEdited.get('trial-conversion')).toBe(before.get('trial-conversion'));

    const journey = path.join(dir, 'trial-conversion.ts');
    writeFileSync(journey, readFileSync(journey, 'utf8').replace('async run(ctx) {', 'async run(ctx) {\n    // edited'));
    expect(versionOf(dir).get('trial-conversion')).not.toBe(before.get('trial-conversion'));
  });

  it('name the journey whose module is missing', () => {
    expect(() => journeyVersions(['no-such-journey'], journeysDir)).toThrow(/journey 'no-such-journey'.*not found/);
  });
});
