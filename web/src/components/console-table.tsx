// The operator console's tables of API rows: a sentence when there are none, else the rows
// under their column headings, with a caption for screen readers, scrolling sideways on a
// narrow screen. The pages keep their own error and loading states and their rows.
import type { ComponentChildren } from 'preact';

export interface ConsoleColumn {
  readonly label: string;
  /** Right-aligned (amounts, durations). */
  readonly number?: boolean;
}

export function ConsoleTable(props: { class: string; caption: string; empty: string; columns: readonly ConsoleColumn[]; rowCount: number; children: ComponentChildren }) {
  if (props.rowCount === 0) return <p>{props.empty}</p>;
  return (
    <div class="table-scroll">
      <table class={`console-table ${props.class}`}>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column.label} scope="col" class={column.number ? 'number' : undefined}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
