import { AppShell, Burger, Button, Group, Loader, NavLink, Stack, Title } from '@mantine/core';
import { useDisclosure, useMediaQuery, useReducedMotion } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { setUnauthenticatedHandler } from '../api/client';
import { useMe } from '../api/me';
import { session } from '../api/session';
import { menuFor } from './menu';
import { StoreSwitcher } from './StoreSwitcher';

/**
 * After a navigation, focus goes to the new screen's heading (screens load lazily and some show a
 * loader first: it is looked for on each frame for up to two seconds).
 */
function useFocusHeadingOnNavigation(navigation: string) {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    let frames = 0;
    let handle = 0;
    const look = () => {
      const heading = document.querySelector<HTMLElement>('main h1');
      if (heading) {
        heading.tabIndex = -1;
        heading.focus();
      } else if (frames++ < 120) handle = requestAnimationFrame(look);
    };
    handle = requestAnimationFrame(look);
    return () => cancelAnimationFrame(handle);
  }, [navigation]);
}

/**
 * The signed-in frame: header with the store switcher, the role's menu, the screen. Below 48em (a
 * phone) the menu is collapsed behind a burger; it closes on navigation, and carries the store
 * switcher and sign-out, which the header has no room for there.
 */
export function Shell() {
  const me = useMe();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [opened, { toggle, close }] = useDisclosure(false);
  // On a phone the closed menu is slid away; hidden too, so Tab and screen readers skip its links.
  const phone = useMediaQuery('(max-width: 47.99em)');
  const reduceMotion = useReducedMotion();
  useEffect(() => {
    setUnauthenticatedHandler(() => {
      queryClient.clear();
      navigate(`/sign-in?next=${encodeURIComponent(window.location.pathname.replace(/^\/app/, '') || '/')}`, { replace: true });
    });
  }, [navigate, queryClient]);
  useEffect(close, [location.pathname, close]);
  // Every navigation, even to the path already shown (the menu's Orders from a filtered list).
  useFocusHeadingOnNavigation(location.key);
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
  const account = (
    <>
      <StoreSwitcher memberships={me.data.memberships} current={me.data.store?.storeId ?? null} />
      <Button variant="subtle" onClick={signOut}>
        Sign out
      </Button>
    </>
  );
  return (
    <AppShell transitionDuration={reduceMotion ? 0 : 200} header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm', collapsed: { mobile: !opened } }} padding="md">
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={opened ? 'Close menu' : 'Open menu'} aria-expanded={opened} aria-controls="main-menu" />
            <Title order={2} size="h4">
              Shopwright
            </Title>
          </Group>
          <Group visibleFrom="sm">{account}</Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" component="nav" id="main-menu" aria-label="Main" style={{ overflowY: 'auto', visibility: phone && !opened ? 'hidden' : undefined }}>
        <Stack gap={2}>
          {menu.map((item) => (
            <NavLink key={item.to} component={Link} to={item.to} label={item.label} variant="filled" active={item.to === active} onClick={close} />
          ))}
        </Stack>
        <Stack hiddenFrom="sm" mt="md" gap="xs">
          {account}
        </Stack>
      </AppShell.Navbar>
      <AppShell.Main id="main" tabIndex={-1}>
        <Outlet />
      </AppShell.Main>
    </AppShell>
  );
}
