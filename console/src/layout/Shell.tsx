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
      <AppShell.Navbar p="xs" component="nav" aria-label="Main">
        <Stack gap={2}>
          {menuFor(me.data.role).map((item) => (
            <NavLink
              key={item.to}
              component={Link}
              to={item.to}
              label={item.label}
              variant="filled"
              active={item.to === '/' ? location.pathname === '/' : location.pathname.startsWith(item.to)}
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
