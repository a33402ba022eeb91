import { ErrorNotice, Loading } from '../../components/ui';
import { useMe } from '../today/api';
import { Agents } from './Agents';
import { ApiTokens } from './ApiTokens';
import { Connectors } from './Connectors';
import { Members } from './Members';
import { Profile } from './Profile';
import { Security } from './Security';

/** D-44 Settings: profile, security (password, two-factor, browsers, API tokens), agents, connectors; members for owners and admins. */
export function Settings() {
  const me = useMe();
  if (me.isPending) return <Loading what="settings" />;
  if (me.isError) return <ErrorNotice error={me.error} onRetry={() => void me.refetch()} />;
  const manager = me.data.role === 'owner' || me.data.role === 'admin';
  return (
    <>
      <h1>Settings</h1>
      <Profile me={me.data} />
      <Security />
      <ApiTokens />
      {manager && <Agents />}
      <Connectors />
      {manager && <Members me={me.data} />}
    </>
  );
}
