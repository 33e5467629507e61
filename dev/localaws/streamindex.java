// StreamIndex gives DynamoDB Local's stream records an index of their own (see streams.go): it
// runs once against the engine's SQLite database, beside the running engine, with the engine's
// own SQLite library (sqlite4java), so that the file stays in the format the engine reads.
//
// Usage: java -Djava.library.path=<DynamoDBLocal_lib> -cp <DynamoDBLocal_lib>/sqlite4java.jar streamindex.java <db file>
import com.almworks.sqlite4java.SQLiteConnection;
import java.io.File;
import java.util.logging.Level;
import java.util.logging.Logger;

public class StreamIndex {
    public static void main(String[] args) throws Exception {
        Logger.getLogger("com.almworks.sqlite4java").setLevel(Level.WARNING);
        SQLiteConnection db = new SQLiteConnection(new File(args[0]));
        db.open(false);
        db.setBusyTimeout(30000);
        db.exec("BEGIN IMMEDIATE");
        // The engine's own definition, in case it has not created the table yet.
        db.exec("CREATE TABLE IF NOT EXISTS us (StreamID TEXT, ShardID TEXT, SequenceNumber INTEGER, CreationDateTime INTEGER, StreamRecord BLOB, OperationType TEXT, PRIMARY KEY(SequenceNumber))");
        db.exec("CREATE INDEX IF NOT EXISTS patio_us_stream ON us(StreamID)");
        db.exec("CREATE INDEX IF NOT EXISTS patio_us_shard ON us(ShardID)");
        // Statistics that make the shard index the one to use wherever a shard is named: read from
        // a position, a shard's records are then found along that index (shard, then sequence
        // number), and its first and last records at its ends. The stream index serves a stream's
        // first record alone.
        db.exec("ANALYZE patio_us_stream");
        db.exec("DELETE FROM sqlite_stat1 WHERE tbl = 'us'");
        db.exec("INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('us', 'patio_us_stream', '1000000 1000000'), ('us', 'patio_us_shard', '1000000 10')");
        db.exec("COMMIT");
        db.dispose();
    }
}
