import { useEffect, type ReactNode } from 'react';

/** The page's one h1 and its document title ("Contacts · Waymark Studio"). */
export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  useDocumentTitle(title);
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {description === undefined ? null : <p>{description}</p>}
      </div>
      {actions === undefined ? null : <div className="row">{actions}</div>}
    </div>
  );
}

export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Waymark Studio`;
  }, [title]);
}
