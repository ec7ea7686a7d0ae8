import './pages.css';
import { client, errorText } from './api.js';
import { h, show } from './dom.js';
import { PartnerkitError } from '../../sdk/errors.js';

/**
 * The public application page /apply/:programId (docs/applications.md#the-application-page): no
 * sign-in; the program's name, a form with name, e-mail, website and message, and the answer,
 * which is the same whoever applies. A field the API refuses is named beside the form.
 */
const root = document.getElementById('app')!;
const programId = Number(location.pathname.split('/').pop());
const api = client();

function field(label: string, control: HTMLInputElement | HTMLTextAreaElement): HTMLElement {
  return h('label', { class: 'field', for: control.id }, h('span', {}, label), control);
}

/** The fields a 400 names (docs/api.md#validation-failures), else the error's message. */
function refusedFields(error: unknown): string {
  const fields = error instanceof PartnerkitError ? (error.details as { fields?: Array<{ field: string; message: string }> } | null)?.fields : undefined;
  return fields ? fields.map((f) => `${f.field}: ${f.message}`).join('; ') : errorText(error);
}

async function run(): Promise<void> {
  let program: { id: number; name: string };
  try {
    program = await api.applications.program(programId);
  } catch {
    document.title = 'Applications closed';
    return show(root, h('section', { class: 'signin' }, h('h1', {}, 'Applications closed'), h('p', {}, 'This program does not take partner applications.')));
  }
  document.title = `Apply to ${program.name}`;
  const name = h('input', { id: 'apply-name', name: 'name', required: true, maxlength: 200, autocomplete: 'name' });
  const email = h('input', { id: 'apply-email', name: 'email', type: 'email', required: true, maxlength: 255, autocomplete: 'email' });
  const website = h('input', { id: 'apply-website', name: 'website', type: 'url', maxlength: 2048 });
  const message = h('textarea', { id: 'apply-message', name: 'message', maxlength: 2000, rows: 5 });
  const status = h('p', { role: 'status', id: 'apply-status' });
  const submit = h('button', { type: 'submit' }, 'Apply');
  const optional = (value: string) => (value.trim() === '' ? undefined : value.trim());
  const form = h(
    'form',
    {
      class: 'apply',
      onsubmit: async (event) => {
        event.preventDefault();
        submit.disabled = true;
        try {
          const answer = await api.applications.apply(program.id, {
            name: name.value.trim(), email: email.value.trim(), website: optional(website.value), message: optional(message.value),
          });
          show(form, h('p', { class: 'done' }, answer.message));
        } catch (error) {
          show(status, h('span', { class: 'error' }, refusedFields(error)));
        } finally {
          submit.disabled = false;
        }
      },
    },
    field('Your name', name),
    field('Your e-mail address', email),
    field('Your website (optional)', website),
    field('A message (optional)', message),
    submit,
  );
  show(root, h('section', { class: 'signin' }, h('h1', {}, `Apply to ${program.name}`), h('p', {}, 'Become a partner: tell us who you are.'), form, status));
}

void run();
