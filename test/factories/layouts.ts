import type TestAgent from 'supertest/lib/agent.js';

export const CARD_LAYOUT = {
  name: 'Pickup',
  card_layout: [
    { type: 'section', title: 'Pickup' },
    { type: 'field', label: 'Driver', path: 'driver.tax_id' },
    { type: 'alert', color: 'yellow', text: 'Bring the seal', icon: 'warning' },
    { type: 'qrcode', path: 'appointment.id' },
  ],
  modal_layout: [{ type: 'field', label: 'Container', path: 'custom_data.container.number' }],
};

export const TICKET_LAYOUT = {
  name: 'Gate ticket',
  elements: [
    { type: 'section', title: 'Gate' },
    { type: 'field', label: 'Gate', path: 'content.gate' },
    { type: 'divider' },
    { type: 'tag_container', tags: [{ text: 'Reefer', color: 'blue' }] },
    { type: 'attention', text: 'Stop at the scale', icon: 'alert' },
    { type: 'instruction', steps: ['Go to lane 3', 'Wait for the light'] },
    { type: 'text', text: 'Have a good trip' },
    { type: 'highlight', label: 'Bay', path: 'content.bay' },
    {
      type: 'highlight_grid',
      items: [
        { label: 'Row', path: 'content.row' },
        { label: 'Tier', path: 'content.tier' },
      ],
    },
  ],
};

export async function putLayout(
  http: TestAgent,
  key: string,
  set: 'trip' | 'appointment' | 'ticket',
  ref: string,
  body?: object,
): Promise<void> {
  const response = await http
    .put(`/api/v1/layouts/${set}/${ref}`)
    .set('X-API-Key', key)
    .send(body ?? (set === 'ticket' ? TICKET_LAYOUT : CARD_LAYOUT));
  if (response.status !== 201 && response.status !== 200) {
    throw new Error(`layout failed: ${response.status} ${JSON.stringify(response.body)}`);
  }
}
