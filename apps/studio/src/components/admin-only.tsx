import { PageHeader } from './page';

/** What a page only owners and admins may open shows to everyone else (the API would answer 403). */
export function AdminOnly({ title }: { title: string }) {
  return (
    <>
      <PageHeader title={title} />
      <p className="notice">This page is for owners and admins of your organization. Ask one of them if you need something here.</p>
    </>
  );
}
