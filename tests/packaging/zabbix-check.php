<?php
// Validate a Zabbix export with the frontend's own import reader and
// validators (zabbix-frontend-php), as a template import would.
$root = getenv('ZABBIX_FRONTEND') ?: '/usr/share/zabbix';
if (!is_dir("$root/include/classes/import")) {
	fwrite(STDERR, "zabbix frontend not found at $root\n");
	exit(77);
}
require "$root/include/defines.inc.php";
require "$root/include/gettextwrapper.inc.php";
$index = [];
$it = new RecursiveIteratorIterator(new RecursiveDirectoryIterator("$root/include/classes"));
foreach ($it as $f)
	if (substr($f, -4) === '.php')
		$index[basename($f, '.php')] = (string)$f;
spl_autoload_register(function ($c) use ($index) {
	if (isset($index[$c]))
		require $index[$c];
});
$file = $argv[1];
$format = pathinfo($file, PATHINFO_EXTENSION);
try {
	$data = CImportReaderFactory::getReader($format)->read(file_get_contents($file));
	$factory = new CImportValidatorFactory($format);
	$data = (new CXmlValidator($factory, $format))->setStrict(true)
	    ->validate($data, '/');
	// What the API does next: constants to values, defaults added.
	$schema = $factory->getObject(ZABBIX_EXPORT_VERSION)->getSchema();
	$data = (new CConstantImportConverter($schema))->convert($data);
	$data = (new CDefaultImportConverter($schema))->convert($data);
} catch (Exception $e) {
	fwrite(STDERR, "$file: " . $e->getMessage() . "\n");
	exit(1);
}
// What the API refuses on import and the schema lets through.
$bad = [];
array_walk_recursive($data, function ($v, $k) use (&$bad) {
	if ($k === 'uuid' && !preg_match('/^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/', $v))
		$bad[] = "uuid $v is not a UUIDv4 (the API refuses it)";
});
// Zabbix 6.0.14 (Debian 12) adds the SNMPv3 fields to every SNMP
// interface of a host prototype on import, then refuses them for v1 and
// v2c ('unexpected parameter "contextname"', ZBX-20699).
foreach ($data['zabbix_export']['templates'] ?? [] as $tp)
	foreach ($tp['discovery_rules'] ?? [] as $dr)
		foreach ($dr['host_prototypes'] ?? [] as $hp)
			foreach ($hp['interfaces'] ?? [] as $if)
				if ($hp['custom_interfaces'] == HOST_PROT_INTERFACES_CUSTOM
				    && $if['type'] == INTERFACE_TYPE_SNMP
				    && $if['details']['version'] != SNMP_V3)
					$bad[] = "host prototype {$hp['host']} has an SNMPv1/v2c custom interface (Zabbix 6.0.14 refuses it on import)";
if ($bad) {
	fwrite(STDERR, "$file: " . implode("; ", $bad) . "\n");
	exit(1);
}
$t = $data['zabbix_export']['templates'] ?? [];
printf("%s: valid Zabbix %s export, %d templates\n", $file,
    $data['zabbix_export']['version'], count($t));
