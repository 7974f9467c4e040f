import { AppShell, Button, Group, Loader, NavLink, Stack, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { setUnauthenticatedHandler } from '../api/client';
import { useMe } from '../api/me';
import { session } from '../api/session';
import { menuFor } from './menu';
import { StoreSwitcher } from './StoreSwitcher';

/** The signed-in frame: header with the store switcher, the role's menu, the screen. */
export function Shell() {
  const me = useMe();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  useEffect(() => {
    setUnauthenticatedHandler(() => {
      queryClient.clear();
      navigate(`/sign-in?next=${encodeURIComponent(window.location.pathname.replace(/^\/app/, '') || '/')}`, { replace: true });
    });
  }, [navigate, queryClient]);
  const signOut = () => {
    session.signOut();
    queryClient.clear();
    navigate('/sign-in', { replace: true });
  };
  if (!me.data) return <Loader aria-label="Loading" m="xl" />;
  const menu = menuFor(me.data.role);
  // The deepest menu entry containing this path is the active one (Marketing vs Marketing › templates).
  const matches = (to: string) => (to === '/' ? location.pathname === '/' : location.pathname === to || location.pathname.startsWith(`${to}/`));
  const active = menu.filter((item) => matches(item.to)).sort((a, b) => b.to.length - a.to.length)[0]?.to;
  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'xs' }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Title order={2} size="h4">
            Shopwright
          </Title>
          <Group>
            <StoreSwitcher memberships={me.data.memberships} current={me.data.store?.storeId ?? null} />
            <Button variant="subtle" onClick={signOut}>
              Sign out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" aria-label="Main" style={{ overflowY: 'auto' }}>
        <Stack gap={2}>
          {menu.map((item) => (
            <NavLink
              key={item.to}
              component={Link}
              to={item.to}
              label={item.label}
              variant="filled"
              active={item.to === active}
            />
          ))}
        </Stack>
      </AppShell.Navbar>
      <AppShell.Main>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
