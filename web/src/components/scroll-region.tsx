// A wide table's container that scrolls sideways on a narrow screen (a phone at 390 px). A
// region that scrolls must be reachable from the keyboard, or its hidden columns are out of
// reach without a pointer (axe: scrollable-region-focusable, serious): it takes the focus
// (tabindex 0, so the arrow keys scroll it) and is named as a region for screen readers.
import type { ComponentChildren } from 'preact';

export function ScrollRegion(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-scroll" role="region" tabIndex={0} aria-label={props.label}>
      {props.children}
    </div>
  );
}
