import { Link, PageHeading } from '../components/common.js';
import { useI18n } from '../i18n/index.js';

export function NotFoundPage(props: { home: string }) {
  const { t } = useI18n();
  return (
    <>
      <PageHeading title={t('notFound.title')} />
      <p>{t('notFound.text')}</p>
      <p>
        <Link to={props.home}>{t('notFound.home')}</Link>
      </p>
    </>
  );
}
