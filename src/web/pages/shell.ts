import type { SignInAudience } from '../../api/constants.js';
import type { PartnerkitClient } from '../../sdk/client.js';
import { client, errorText, isSignedOut } from './api.js';
import { button, h, show, type Child } from './dom.js';
import { forgetToken, keepToken, storedToken, takeSignInCode } from './session.js';

/**
 * What both pages share (docs/pages.md#serving-caching-and-the-session): the session from the sign-in link's code, the
 * sign-in message when there is none, it expired or the link was refused, sign-out, and the failure
 * of any call.
 */
export type Page = {
  title: string;
  /** sessionStorage key of the page's token: a member's and a partner's sessions never mix. */
  storageKey: string;
  /** The command that prints a sign-in link. */
  signInCommand: string;
  /** Who signs in on the page, for a sign-in link by mail (docs/mail.md#sign-in-by-e-mail). */
  audience: SignInAudience;
};

export type Shell = {
  client: PartnerkitClient;
  root: HTMLElement;
  /** Reports a failed call: back to the sign-in message when the session is gone, else the error in `where`. */
  fail(error: unknown, where?: Element): void;
  /** The page header: title, what the page is about, the signed-in identity and the sign-out button. */
  header(...children: Child[]): HTMLElement;
};

export function start(page: Page, run: (shell: Shell) => Promise<void>): void {
  const root = document.getElementById('app')!;
  const code = takeSignInCode();
  if (code === null) return open(root, page, run);
  client()
    .sessions.exchange(code)
    .then(
      ({ token }) => {
        keepToken(page.storageKey, token);
        open(root, page, run);
      },
      // A used or expired link: the API's message says so and the sign-in message how to get a new one.
      (error) => signIn(root, page, false, errorText(error)),
    );
}

/** Runs the page with the tab's session, or shows the sign-in message without one. */
function open(root: HTMLElement, page: Page, run: (shell: Shell) => Promise<void>): void {
  const token = storedToken(page.storageKey);
  if (!token) return signIn(root, page, false);
  const session = client(token);
  const shell: Shell = {
    client: session,
    root,
    fail(error, where = root) {
      if (isSignedOut(error)) {
        forgetToken(page.storageKey);
        signIn(root, page, true);
      } else show(where, h('p', { class: 'error', role: 'alert' }, errorText(error)));
    },
    header: (...children) =>
      h(
        'header',
        { class: 'top' },
        h('h1', {}, page.title),
        ...children,
        button('Sign out', async () => {
          // The server forgets the session; the page forgets it even when the server cannot be reached.
          await session.sessions.signOut().catch(() => undefined);
          forgetToken(page.storageKey);
          signIn(root, page, false, 'You are signed out.');
        }, { class: 'secondary', id: 'sign-out' }),
      ),
  };
  run(shell).catch((error) => shell.fail(error));
}

function signIn(root: HTMLElement, page: Page, expired: boolean, note?: string): void {
  document.title = page.title;
  show(
    root,
    h(
      'section',
      { class: 'signin', id: 'sign-in' },
      h('h1', {}, page.title),
      h('p', { role: 'status' }, note ?? (expired ? 'Your session has expired. Sign in again.' : 'You are not signed in.')),
      emailLinkForm(page),
      h('p', {}, 'Or run ', h('code', {}, page.signInCommand), ' and open the link it prints.'),
    ),
  );
}

/** Asks for a sign-in link by mail; the answer is the same whether or not the address may sign in. */
function emailLinkForm(page: Page): HTMLElement {
  // Announced as it changes; the sign-in message keeps the page's one status role.
  const status = h('p', { 'aria-live': 'polite', id: 'email-link-status' });
  const input = h('input', { type: 'email', id: 'email-link-email', name: 'email', required: true, autocomplete: 'email', maxlength: 255 });
  const submit = h('button', { type: 'submit' }, 'E-mail me a sign-in link');
  const form = h(
    'form',
    {
      class: 'email-link',
      onsubmit: async (event) => {
        event.preventDefault();
        submit.disabled = true;
        try {
          show(status, (await client().sessions.emailLink({ email: input.value.trim(), audience: page.audience })).message);
        } catch (error) {
          show(status, h('span', { class: 'error' }, errorText(error)));
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('label', { class: 'field', for: 'email-link-email' }, h('span', {}, 'Your e-mail address'), input),
    submit,
  );
  return h('div', {}, form, status);
}
