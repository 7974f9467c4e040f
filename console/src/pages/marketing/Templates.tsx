import { Button, Grid, Group, Stack, Table, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { fieldError, unwrap } from '../../api/errors';
import { FormError } from '../../components/FormError';
import { ListState } from '../../components/ListState';

const FIELDS = ['key', 'name', 'subject', 'html', 'text'];

/** Email templates (Liquid): list, create, delete, and a preview rendered by the API with sample data. */
export function Templates() {
  const [name, setName] = useState('');
  const [subject, setSubject] = useState('');
  const [html, setHtml] = useState('<p>Hello {{ customer.firstName }}</p>');
  const [selected, setSelected] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const queryClient = useQueryClient();
  const [q, setQ] = useState('');
  const [search] = useDebouncedValue(q, 250);
  const templates = useQuery({
    queryKey: ['templates', search],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/marketing/templates', { params: { query: { limit: 50, ...(search ? { q: search } : {}) } } })).data.templates
  });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['templates'] });
  // The form the user sees now: a save that finishes after they picked another template to edit
  // must not wipe that choice (the list can show a new row before the save's own answer arrives).
  const editingNow = useRef<string | null>(null);
  editingNow.current = editing;
  const create = useMutation({
    mutationFn: async (target: string | null) =>
      target
        ? unwrap(await api.PUT('/api/v1/admin/marketing/templates/{templateId}', { params: { path: { templateId: target } }, body: { name, subject, html } })).data.template
        : unwrap(await api.POST('/api/v1/admin/marketing/templates', { body: { name, subject, html } })).data.template,
    onSuccess: (template, target) => {
      if (editingNow.current === target) {
        setName('');
        setSubject('');
        setEditing(null);
        setSelected(template.id);
      }
      refresh();
      void queryClient.invalidateQueries({ queryKey: ['template-preview', template.id] });
    }
  });
  const startEditing = (template: { id: string; name: string; subject: string; html: string }) => {
    setEditing(template.id);
    setName(template.name);
    setSubject(template.subject);
    setHtml(template.html);
  };
  const remove = useMutation({
    mutationFn: async (templateId: string) => {
      const result = await api.DELETE('/api/v1/admin/marketing/templates/{templateId}', { params: { path: { templateId } } });
      if (!result.response.ok) unwrap(result);
    },
    onSuccess: () => (setSelected(null), refresh())
  });
  const preview = useQuery({
    queryKey: ['template-preview', selected],
    enabled: Boolean(selected),
    queryFn: async () =>
      unwrap(await api.POST('/api/v1/admin/marketing/templates/{templateId}/preview', { params: { path: { templateId: selected! } }, body: {} })).data.preview
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(editing);
  };
  return (
    <Stack>
      <Title order={1}>Email templates</Title>
      <Grid>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <form onSubmit={submit} aria-labelledby="template-form-title">
            <Stack>
              <Title order={2} size="h4" id="template-form-title">
                {editing ? 'Edit template' : 'New template'}
              </Title>
              <TextInput label="Template name" required value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldError(create.error, 'name')} />
              <TextInput label="Email subject" required value={subject} onChange={(e) => setSubject(e.currentTarget.value)} error={fieldError(create.error, 'subject')} />
              <Textarea label="HTML (Liquid)" autosize minRows={4} value={html} onChange={(e) => setHtml(e.currentTarget.value)} error={fieldError(create.error, 'html')} />
              <Group>
                <Button type="submit" loading={create.isPending} w="fit-content">
                  {editing ? 'Save template' : 'Create template'}
                </Button>
                {editing && (
                  <Button variant="default" onClick={() => (setEditing(null), setName(''), setSubject(''))}>
                    Cancel editing
                  </Button>
                )}
              </Group>
              <FormError error={create.error ?? remove.error} fields={FIELDS} />
            </Stack>
          </form>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6 }}>
          {selected && (
            <section aria-labelledby="preview-title">
              <Title order={2} size="h4" id="preview-title">
                Preview
              </Title>
              <FormError error={preview.error} />
              {preview.data && (
                <Stack gap="xs">
                  <Text data-testid="preview-subject">Subject: {preview.data.subject}</Text>
                  <iframe title="Rendered email" sandbox="" srcDoc={preview.data.html} style={{ width: '100%', minHeight: 240, border: '1px solid #ccc', background: '#fff' }} />
                  {preview.data.text && <Text size="sm">{preview.data.text}</Text>}
                </Stack>
              )}
            </section>
          )}
        </Grid.Col>
      </Grid>
      <TextInput label="Search templates" value={q} onChange={(e) => setQ(e.currentTarget.value)} maw={320} />
      <div className="table-scroll">
      <Table striped aria-label="Templates">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Key</Table.Th>
            <Table.Th>Subject</Table.Th>
            <Table.Th>Actions</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {templates.data?.map((template) => (
            <Table.Tr key={template.id}>
              <Table.Td>{template.name}</Table.Td>
              <Table.Td>{template.key}</Table.Td>
              <Table.Td>{template.subject}</Table.Td>
              <Table.Td>
                <Group gap="xs">
                  <Button size="xs" variant="default" onClick={() => startEditing(template)} aria-label={`Edit ${template.name}`}>
                    Edit
                  </Button>
                  <Button size="xs" variant="default" onClick={() => setSelected(template.id)} aria-label={`Preview ${template.name}`}>
                    Preview
                  </Button>
                  <Button size="xs" variant="default" color="red" onClick={() => remove.mutate(template.id)} aria-label={`Delete ${template.name}`}>
                    Delete
                  </Button>
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      </div>
      <ListState query={templates} count={templates.data?.length} empty={search ? "No template matches." : "No templates yet: write one above."} label="templates" />
    </Stack>
  );
}
