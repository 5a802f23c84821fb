import { z } from 'zod';
import { preferenceCenter, unsubscribeLinkPage, unsubscribeQuestionPage, type HtmlPage } from '@waymark/core/preferences/email-pages';
import type { UnsubscribeSource } from '@waymark/core/preferences/outbound-events';
import type { FastifyReply } from 'fastify';
import type { RoutePlugin } from '../../http/type-provider';
import { errorBody, mediaResponse } from '../../schemas/common';
import type { AppDeps } from '../../deps';

const tags = ['email-pages'];
// the token is checked by the page (400 HTML page), not by the schema (which would answer JSON)
const tokenQuery = z.object({ token: z.union([z.string(), z.array(z.string())]).optional() });
const html = z.string();
const page = mediaResponse('HTML page', { 'text/html': html });
const errorPage = mediaResponse('HTML error page: the token is missing, invalid or expired', { 'text/html': html });

function firstToken(token: string | string[] | undefined): string | undefined {
  return Array.isArray(token) ? token[0] : token;
}

/**
 * Who posted: RFC 8058 one-click (`List-Unsubscribe=One-Click`, form-encoded or multipart), a
 * preference center toggle (its hidden `from` field), or the confirmation page's button.
 */
function postSource(body: unknown): UnsubscribeSource {
  if (typeof body !== 'string') return 'unsubscribe_page';
  if (/List-Unsubscribe(=|"\r?\n\r?\n)One-Click/.test(body)) return 'one_click';
  if (/(^|&)from=preference_center(&|$)|name="from"\r?\n\r?\npreference_center/.test(body)) return 'preference_center';
  return 'unsubscribe_page';
}

function sendPage(reply: FastifyReply, page: HtmlPage) {
  return reply
    .status(page.status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-robots-tag', 'noindex')
    .send(page.html);
}

/**
 * Public plane: unsubscribe and preference center (signed token, no API key). Never rate limited:
 * a person's opt-out is never refused (docs/operations.md, Rate limits).
 */
export const emailPageRoutes: RoutePlugin<{ deps: AppDeps }> = async (app, { deps }) => {
  const pages = { db: deps.db, tokens: deps.email.tokens, publicUrl: deps.config.apiPublicUrl, categories: deps.categories };

  // RFC 8058 one-click POSTs `List-Unsubscribe=One-Click` as a form; the token is in the URL.
  for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data']) {
    app.addContentTypeParser(type, { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => done(null, body));
  }

  app.get(
    '/v1/email/unsubscribe',
    {
      config: { rateLimit: false },
      schema: {
        tags,
        summary: 'Ask to confirm the signed token (unsubscribe or resubscribe): a page with a button that posts it; changes nothing',
        description:
          'A visit never changes a preference, because mail security gateways (Safe Links, Mimecast, Proofpoint) fetch every link of a delivered message. ' +
          'The page has one button, a form posting to this URL, and a link to the preference center. HEAD changes nothing either.',
        querystring: tokenQuery,
        response: { 200: page, 400: errorPage },
      },
    },
    async (request, reply) => sendPage(reply, await unsubscribeQuestionPage(pages, firstToken(request.query.token))),
  );

  app.post(
    '/v1/email/unsubscribe',
    {
      config: { rateLimit: false },
      schema: {
        tags,
        summary: "Apply the signed token: the confirmation page's button, a preference center toggle, or RFC 8058 one-click (List-Unsubscribe-Post)",
        querystring: tokenQuery,
        body: z.unknown(),
        // an unreadable body (e.g. malformed JSON) is rejected before the handler as `{error}`
        response: {
          200: page,
          400: mediaResponse('HTML error page for a bad token; `{error}` JSON for an unreadable body', { 'text/html': html, 'application/json': errorBody }),
        },
      },
    },
    async (request, reply) => sendPage(reply, await unsubscribeLinkPage(pages, firstToken(request.query.token), postSource(request.body))),
  );

  app.get(
    '/v1/email/preferences',
    {
      config: { rateLimit: false },
      schema: {
        tags,
        summary: 'Preference center (categories and the global switch, each a form posting to the unsubscribe URL)',
        querystring: tokenQuery,
        response: { 200: page, 400: errorPage },
      },
    },
    async (request, reply) => sendPage(reply, await preferenceCenter(pages, firstToken(request.query.token))),
  );
};
