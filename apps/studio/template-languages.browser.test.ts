import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectPage } from '../../test/browser';
import { checkPage, poll, startStudio, type Studio } from './test/studio-fixture';

/**
 * The template preview in each language of the template's catalog (docs/email.md, "Languages"):
 * the welcome email in English, then in French from the Language picker, axe-clean in both. Fails
 * on any console error or failed request; screenshots: test-results/studio/.
 */
describe('Template languages in Chromium', () => {
  let studio: Studio;
  let page: Page;

  beforeAll(async () => {
    studio = await startStudio();
    ({ page } = await studio.openAdminTab('template-languages'));
  });

  afterAll(() => studio?.close());

  it('previews the welcome email in English, then in French', async () => {
    await page.goto('/studio/templates?key=welcome');
    // the subject beside its label, marked with the language it is in
    const subject = page.locator('strong:text-is("Subject:") + span');
    const frame = page.frameLocator('iframe[title^="Preview of welcome"]');
    await poll(() => subject.textContent()).toBe('Welcome to Waymark, Ada!');
    await expectPage(subject).toHaveAttribute('lang', 'en');
    await poll(() => frame.getByText('Go to your dashboard').count()).toBe(1);
    await checkPage(page, 'template-languages-en', 'Templates');

    const language = page.getByLabel('Language');
    await poll(() => language.locator('option').allTextContents()).toEqual(['English (en)', 'French (fr)']);
    await language.selectOption('fr');
    await poll(() => subject.textContent()).toBe('Bienvenue sur Waymark, Ada !');
    await expectPage(subject).toHaveAttribute('lang', 'fr');
    await poll(() => frame.getByText('Accéder à votre tableau de bord').count()).toBe(1);
    await poll(() => page.locator('iframe[title="Preview of welcome (French (fr))"]').count()).toBe(1);
    await expectPage(page).toHaveURL((url) => url.searchParams.get('locale') === 'fr');
    await checkPage(page, 'template-languages-fr', 'Templates');

    // a template with one language offers no choice, and the preview stays in its default
    await page.getByLabel('Template').selectOption('welcome-tips');
    await poll(() => language.isDisabled()).toBe(true);
    await poll(() => language.locator('option').allTextContents()).toEqual(['English (en)']);
  });

  it('saw no console error, failed request or error response', () => {
    expect(studio.problems).toEqual([]);
  });
});
