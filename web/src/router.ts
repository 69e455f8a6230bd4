// A history router under /cabinet/: the page is the path after the base (`/cabinet/keys` →
// `/keys`), so every page has a real address the server answers with index.html
// (src/http/routes/web.ts). Links are plain <a href> (open in a new tab works); a plain click
// is turned into pushState here.
import { useEffect, useState } from 'preact/hooks';
import { hrefOf, pagePathOf } from './paths.js';

export { basePath, hrefOf, pagePathOf } from './paths.js';

const listeners = new Set<() => void>();

export function navigate(pagePath: string, options: { replace?: boolean } = {}): void {
  const href = hrefOf(pagePath);
  if (options.replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  for (const listener of listeners) listener();
  window.scrollTo(0, 0);
}

/** The current page path; re-renders on navigation (links, back and forward). */
export function usePagePath(): string {
  const [path, setPath] = useState(() => pagePathOf(location.pathname));
  useEffect(() => {
    const update = () => setPath(pagePathOf(location.pathname));
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return path;
}

/** A click on an in-app link: handled here unless a modifier or another button asks the browser to open it elsewhere. */
export function followLink(event: MouseEvent, pagePath: string): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(pagePath);
}
