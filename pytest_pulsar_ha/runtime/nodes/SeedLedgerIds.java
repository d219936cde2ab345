// Run before a standalone's first start (compiled with ecj, then java -cp "<classes>:<pulsar>/lib/*" SeedLedgerIds
// STORE_URL LEDGERS_ROOT HIGH):
// creates LEDGERS_ROOT/idgen-long/HOB-<HIGH> in the metadata store, so that Pulsar's ledger id generator
// (org.apache.pulsar.metadata.bookkeeper.PulsarLedgerIdGenerator) hands out 63-bit ids whose high 32 bits are
// HIGH: (HIGH << 32) | n. Each cluster of an environment gets its own HIGH, so a (ledger, entry) position names
// one cluster. Prints the path it created (or found) on success.
import java.util.Optional;
import org.apache.pulsar.metadata.api.MetadataStoreConfig;
import org.apache.pulsar.metadata.api.extended.MetadataStoreExtended;

public class SeedLedgerIds {
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: SeedLedgerIds STORE_URL LEDGERS_ROOT HIGH_BITS");
            System.exit(2);
        }
        int high = Integer.parseInt(args[2]);
        if (high < 1) {
            System.err.println("HIGH_BITS must be at least 1");
            System.exit(2);
        }
        String idgen = args[1] + "/idgen-long";
        String hob = idgen + "/HOB-" + String.format("%010d", high);
        try (MetadataStoreExtended store = MetadataStoreExtended.create(args[0], MetadataStoreConfig.builder().build())) {
            for (String path : new String[] {args[1], idgen, hob}) {
                if (!store.exists(path).get()) {
                    store.put(path, new byte[0], Optional.empty()).get();
                }
            }
            System.out.println("seeded " + hob);
        }
    }
}
