/**
 * The page's session token (docs/behaviour.md §16.1): a sign-in link carries it in the URL's
 * fragment, which browsers never send to a server; the page moves it into sessionStorage (this tab
 * only, gone when the tab closes) and removes the fragment from the address bar and history.
 */
export function takeToken(key: string): string | null {
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  if (token) {
    sessionStorage.setItem(key, token);
    history.replaceState(history.state, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(key);
}

export function forgetToken(key: string): void {
  sessionStorage.removeItem(key);
}
