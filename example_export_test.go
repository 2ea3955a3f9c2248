package automium_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/automium/automium"
)

// A reference journey becomes a Playwright Test spec: one test.step per node,
// titled with the node ID, and the mapping that reads its report back.
func ExampleExportPlaywrightSpec() {
	spec, err := automium.ExportPlaywrightSpec(context.Background(), automium.ExportPlaywrightSpecInput{
		JourneyID: "storefront-search-add-to-cart",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(spec.FileName)
	for _, line := range strings.Split(spec.Spec, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "await test.step('") || strings.HasPrefix(line, "await page.") || strings.HasPrefix(line, "await expect(") {
			fmt.Println(line)
		}
	}
	fmt.Printf("journey from the %s %q, planner from the %s\n", spec.Mapping.Journey.From, spec.Mapping.Journey.Name, spec.Mapping.Planner.From)
	// Output:
	// storefront-search-add-to-cart.spec.ts
	// await test.step('step-1', async () => {
	// await page.goto('/');
	// await test.step('step-2', async () => {
	// await page.getByRole('searchbox', { name: 'Search products', exact: true }).fill('kettle');
	// await test.step('step-3', async () => {
	// await page.keyboard.press('Enter');
	// await test.step('step-4', async () => {
	// await page.getByRole('button', { name: 'Add to cart', exact: true }).click();
	// await test.step('assert-1', async () => {
	// await expect(page.locator('body')).toContainText('Added to cart', { useInnerText: true });
	// journey from the tag "journey", planner from the project
}
