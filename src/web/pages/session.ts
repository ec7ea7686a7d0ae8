/**
 * The page's session (docs/sessions.md#sign-in-links-and-one-time-codes): a sign-in link carries a
 * one-time code in the URL's fragment, which browsers never send to a server. The page removes it
 * from the address bar and history at once and exchanges it for a session token, kept in
 * sessionStorage (this tab only, gone when the tab closes). A `#token=` of an older link is removed
 * unread: a link must never sign anyone into a session someone else chose.
 */
export function takeSignInCode(): string | null {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.has('code') || fragment.has('token')) history.replaceState(history.state, '', location.pathname + location.search);
  return fragment.get('code');
}

export function storedToken(key: string): string | null {
  return sessionStorage.getItem(key);
}

export function keepToken(key: string, token: string): void {
  sessionStorage.setItem(key, token);
}

export function forgetToken(key: string): void {
  sessionStorage.removeItem(key);
}
