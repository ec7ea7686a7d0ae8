import { createHash } from 'node:crypto';

/**
 * The tracking script merchants load with one tag, `<script async src="…/pk.js?program=ID">`
 * (docs/tracking.md#the-tracking-script-get-pkjsprogramprogramid). Hand-written ES5 without dependencies, kept under 4 KB: on the
 * merchant's page it takes the click id a partner link brought (`partner_click_id=`), or records
 * the click of a `via=<refCode>` visit through the click endpoint (CORS) of the server it was loaded
 * from, and keeps it in the first-party cookie `partner_click_id` for the program's attribution
 * window. A reload or a step back in history keeps the cookie and records nothing; a visit without
 * a partner keeps whatever cookie there is. `window.partnerkit.clickId()` reads the cookie;
 * `window.partnerkit.ready` resolves with it once a click has been recorded.
 */
const SOURCE = `/* partnerkit tracking script */
(function () {
  var NAME = 'partner_click_id', MAX_AGE = __MAX_AGE__;
  var CLICK_ID = /^ck_\\d{1,15}_[A-Za-z0-9_-]{16,64}$/;
  var script = document.currentScript;
  var server = script && script.src ? new URL(script.src).origin : null;
  function clickId() {
    var m = document.cookie.match(/(?:^|;\\s*)partner_click_id=([^;]*)/);
    return m ? m[1] : null;
  }
  function keep(id) {
    document.cookie = NAME + '=' + id + '; path=/; max-age=' + MAX_AGE + '; SameSite=Lax' + (location.protocol === 'https:' ? '; Secure' : '');
    return id;
  }
  var query = new URLSearchParams(location.search);
  var brought = query.get(NAME), ref = query.get('via');
  var navigation = (performance.getEntriesByType && performance.getEntriesByType('navigation')[0]) || {};
  var revisit = (navigation.type === 'reload' || navigation.type === 'back_forward') && clickId() !== null;
  var ready;
  if (revisit) ready = Promise.resolve(clickId());
  else if (brought && CLICK_ID.test(brought)) ready = Promise.resolve(keep(brought));
  else if (ref && server) {
    ready = fetch(server + '/api/v1/track/click', {
      method: 'POST',
      credentials: 'omit',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ref: ref.slice(0, 255), landing_url: location.href.slice(0, 2048), referrer: document.referrer.slice(0, 2048) || undefined })
    }).then(function (response) {
      return response.ok ? response.json() : {};
    }).then(function (body) {
      return CLICK_ID.test(body.click_id) ? keep(body.click_id) : clickId();
    }, clickId);
  } else ready = Promise.resolve(clickId());
  window.partnerkit = { clickId: clickId, ready: ready };
})();
`;

export type TrackingScript = { body: string; etag: string };

const scripts = new Map<number, TrackingScript>();

/** The script for a program whose attribution window is `windowDays` days, with its ETag (one per window length). */
export function trackingScript(windowDays: number): TrackingScript {
  let script = scripts.get(windowDays);
  if (!script) {
    const body = SOURCE.replace('__MAX_AGE__', String(windowDays * 86_400));
    script = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
    scripts.set(windowDays, script);
  }
  return script;
}
