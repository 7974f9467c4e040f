import { createTheme, type CSSVariablesResolver } from '@mantine/core';

/**
 * Mantine's defaults darkened where they fall under WCAG AA contrast (4.5:1) on white: the primary
 * blue of buttons and links (shade 8), secondary text, required marks and errors.
 */
export const theme = createTheme({ primaryColor: 'blue', primaryShade: { light: 8, dark: 8 } });

export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': t.colors.gray[7]!,
    '--mantine-color-error': t.colors.red[8]!,
    '--mantine-color-placeholder': t.colors.gray[7]!,
    '--mantine-color-anchor': t.colors.blue[8]!
  },
  dark: {}
});
