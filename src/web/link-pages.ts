/**
 * The page a partner link answers when it leads nowhere (docs/tracking.md#partner-links-get-rrefcode): the visitor
 * followed a link in a browser, so a page rather than a JSON error. It never repeats the link's
 * text, so nothing a link carries is ever written into the page.
 */
const page = (title: string, text: string) => `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${title}</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem; color: #222">
<h1 style="font-size: 1.4rem">${title}</h1>
<p>${text}</p>
</body>
</html>
`;

export const LINK_PAGES = {
  unknown_ref: page('This referral link does not exist', 'The link may be mistyped, or the partner it belonged to no longer takes part in the program.'),
  no_landing_url: page('This referral link leads nowhere yet', 'The program has not set the page its partner links lead to.'),
} as const;
