import './pages.css';
import { h, show } from './dom.js';
import { start } from './shell.js';

/** The partner portal (docs/behaviour.md §16.7): a partner's own programs, links and numbers. */
start({ title: 'partnerkit partner portal', storageKey: 'partnerkit.portal.token', signInCommand: 'partnerkit partner login --partner <id>' }, async (shell) => {
  show(shell.root, shell.header(), h('p', { class: 'notice' }, 'Loading…'));
});
